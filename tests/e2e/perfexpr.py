"""An evaluator of perf's metric expressions (tools/perf/util/expr.y), written for
the differential test (test_perf_metrics.py) independently of tdprof's src/model/expr.c.

Grammar, as perf's expr.l/expr.y define it (lowest precedence first):
    if_expr := expr 'if' expr 'else' if_expr | expr
    expr    := expr '|' expr   (logical or: 0 or 1)
             | expr '^' expr   (logical xor)
             | expr '&' expr   (logical and)
             | expr ('<' | '>') expr
             | expr ('+' | '-') expr
             | expr ('*' | '/' | '%') expr
             | '-' expr | '!' expr
             | NUMBER | ID | LITERAL ('#slots', '#smt_on', '#num_cpus_online', ...)
             | '(' if_expr ')'
             | ('min' | 'max' | 'd_ratio') '(' expr ',' expr ')'
             | ('source_count' | 'has_event' | 'strcmp_cpuid_str') '(' ID ')'
An ID is a run of [0-9a-zA-Z_.:@?] and backslash-escaped '-', ',' and '=':
`topdown\\-fe\\-bound`, `cpu@INT_MISC.RECOVERY_CYCLES\\,cmask\\=1\\,edge@`,
`cpu_core@CPU_CLK_UNHALTED.THREAD_P@k`. IDs are returned unescaped.
"""
import math
import re

NUMBER = re.compile(r"([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)([eE]-?[0-9]+)?")
SYM = re.compile(r"(?:\\[-,=]|[0-9a-zA-Z_.:@?])+")
FUNCS2 = ("min", "max", "d_ratio")
FUNCS_ID = ("source_count", "has_event", "strcmp_cpuid_str")


class ExprError(Exception):
    pass


def tokenize(s):
    toks, i = [], 0
    while i < len(s):
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if c == "#":
            m = SYM.match(s, i + 1)
            if not m:
                raise ExprError("bad literal at %d in %r" % (i, s))
            toks.append(("lit", "#" + m.group(0)))
            i = m.end()
            continue
        m = NUMBER.match(s, i)
        if m and m.group(0) and (m.end() == len(s) or not SYM.match(s, m.end()) or s[m.end()] in " ()+-*/,<>&|^%"):
            toks.append(("num", float(m.group(0))))
            i = m.end()
            continue
        m = SYM.match(s, i)
        if m:
            word = m.group(0)
            toks.append(("id", re.sub(r"\\(.)", r"\1", word)))
            i = m.end()
            continue
        if c in "+-*/%<>&|^!(),":
            toks.append(("op", c))
            i += 1
            continue
        raise ExprError("unexpected %r at %d in %r" % (c, i, s))
    return toks


class Node:
    """A parsed expression: kind in num, lit, id, neg, not, bin, if, call."""

    def __init__(self, kind, *args):
        self.kind, self.args = kind, args

    def ids(self):
        """Every ID the expression names (events and metric references)."""
        if self.kind == "id":
            yield self.args[0]
        elif self.kind == "call" and self.args[0] in FUNCS_ID:
            yield from ()
        for a in self.args:
            if isinstance(a, Node):
                yield from a.ids()
            elif isinstance(a, list):
                for x in a:
                    if isinstance(x, Node):
                        yield from x.ids()


def is_const(node):
    """True when node names no ID (numbers and literals only): perf knows its value
    when it parses the expression."""
    return next(node.ids(), None) is None


def counted_ids(node, literal):
    """The IDs perf counts for node: as ids(), but an if-else whose condition is
    known when perf parses it (`... if #core_wide < 1 else ...`, `#smt_on`) keeps
    the IDs of the taken arm only, as perf's expr.y does."""
    if node.kind == "if":
        cond, yes, no = node.args
        if is_const(cond):
            yield from counted_ids(yes if evaluate(cond, lambda i: 0.0, literal) else no, literal)
            return
        for n in node.args:
            yield from counted_ids(n, literal)
        return
    if node.kind == "id":
        yield node.args[0]
        return
    if node.kind == "call" and node.args[0] in FUNCS_ID:
        return
    for a in node.args:
        if isinstance(a, Node):
            yield from counted_ids(a, literal)


PREC = {"|": 1, "^": 2, "&": 3, "<": 4, ">": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}


class Parser:
    def __init__(self, text):
        self.text = text
        self.toks = tokenize(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, kind=None, value=None):
        t = self.peek()
        if t[0] is None or (kind and t[0] != kind) or (value is not None and t[1] != value):
            raise ExprError("expected %s %s at token %d of %r" % (kind, value, self.i, self.text))
        self.i += 1
        return t

    def parse(self):
        n = self.if_expr()
        if self.i != len(self.toks):
            raise ExprError("trailing %r in %r" % (self.peek(), self.text))
        return n

    def if_expr(self):
        e = self.expr(0)
        if self.peek() == ("id", "if"):
            self.take()
            cond = self.expr(0)
            self.take("id", "else")
            return Node("if", cond, e, self.if_expr())
        return e

    def expr(self, min_prec):
        left = self.unary()
        while True:
            k, v = self.peek()
            if k != "op" or v not in PREC or PREC[v] < min_prec:
                return left
            self.take()
            right = self.expr(PREC[v] + 1)
            left = Node("bin", v, left, right)

    def unary(self):
        k, v = self.peek()
        if (k, v) == ("op", "-"):
            self.take()
            return Node("neg", self.unary())
        if (k, v) == ("op", "!"):
            self.take()
            return Node("not", self.unary())
        if k == "num":
            self.take()
            return Node("num", v)
        if k == "lit":
            self.take()
            return Node("lit", v)
        if (k, v) == ("op", "("):
            self.take()
            e = self.if_expr()
            self.take("op", ")")
            return e
        if k == "id":
            self.take()
            if v in FUNCS2 and self.peek() == ("op", "("):
                self.take()
                a = self.if_expr()
                self.take("op", ",")
                b = self.if_expr()
                self.take("op", ")")
                return Node("call", v, a, b)
            if v in FUNCS_ID and self.peek() == ("op", "("):
                self.take()
                _, name = self.take("id")
                self.take("op", ")")
                return Node("call", v, name)
            return Node("id", v)
        raise ExprError("unexpected %r at token %d of %r" % (v, self.i, self.text))


def parse(text):
    return Parser(text).parse()


def evaluate(node, lookup, literal, has_event=lambda name: True, cpuid_at_least=lambda cpuid: False):
    """Value of node: lookup(ID) gives an event's count or a referenced metric's
    value, literal('#smt_on') a literal's; strcmp_cpuid_str(ID) is 1 when
    cpuid_at_least(ID) (arm64: the same part, at that revision or later). Division
    by zero gives NaN, as in perf."""
    def ev(n):
        k, a = n.kind, n.args
        if k == "num":
            return a[0]
        if k == "lit":
            return literal(a[0])
        if k == "id":
            return lookup(a[0])
        if k == "neg":
            return -ev(a[0])
        if k == "not":
            return 0.0 if ev(a[0]) else 1.0
        if k == "if":
            return ev(a[1]) if ev(a[0]) else ev(a[2])
        if k == "call":
            f = a[0]
            if f == "source_count":
                return 1.0
            if f == "has_event":
                return 1.0 if has_event(a[1]) else 0.0
            if f == "strcmp_cpuid_str":
                return 1.0 if cpuid_at_least(a[1]) else 0.0
            x, y = ev(a[1]), ev(a[2])
            if f == "min":
                return min(x, y)
            if f == "max":
                return max(x, y)
            return 0.0 if y == 0 else x / y  # d_ratio
        op, x, y = a[0], ev(a[1]), ev(a[2])
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if op == "/":
            return math.nan if y == 0 else x / y
        if op == "%":
            return math.nan if y == 0 else math.fmod(x, y)
        if op == "<":
            return 1.0 if x < y else 0.0
        if op == ">":
            return 1.0 if x > y else 0.0
        if op == "&":
            return 1.0 if (x != 0 and y != 0) else 0.0
        if op == "|":
            return 1.0 if (x != 0 or y != 0) else 0.0
        if op == "^":
            return 1.0 if ((x != 0) != (y != 0)) else 0.0
        raise ExprError("unknown operator %r" % op)
    return ev(node)


def selftest():
    """The evaluator's own checks (run by the test before it trusts the evaluator)."""
    look = {"a": 2.0, "b": 3.0, "topdown-fe-bound": 5.0, "cpu@X,cmask=1@": 7.0}.__getitem__
    lit = {"#smt_on": 1.0, "#slots": 6.0}.__getitem__
    cases = [
        ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("10 - 4 - 3", 3), ("12 / 3 / 2", 2), ("-a + b", 1),
        ("a if #smt_on else b", 2), ("a if 0 else b if 1 else 9", 3), ("min(a, b) + max(a, b)", 5),
        ("d_ratio(a, 0)", 0), ("d_ratio(b, a)", 1.5), ("topdown\\-fe\\-bound / #slots", 5 / 6),
        ("cpu@X\\,cmask\\=1@ * 2", 14), ("a > 1 & b < 2", 0), ("a > 1 | b < 2", 1), ("1e3 * a", 2000),
        ("(a * b if a > b else b - a)", 1), ("max(0, 1 - (a + b))", 0), ("a + b if 1 > 2 else a * b", 6),
    ]
    for text, want in cases:
        got = evaluate(parse(text), look, lit)
        if abs(got - want) > 1e-12:
            raise AssertionError("perfexpr: %r = %r, expected %r" % (text, got, want))
