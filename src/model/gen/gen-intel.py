#!/usr/bin/env python3
"""gen-intel.py: the Intel models of tdprof, generated from Intel's TMA spreadsheets.

Usage: gen-intel.py TMA_Metrics-full.csv E-core_TMA_Metrics.csv platforms.json OUT.c OUT.h [-v]

Reads Intel's top-down tables (data/intel/, BSD-3-Clause, see data/intel/README.md)
and data/intel/platforms.json (which TMA column is which tdprof model) and writes
the C `struct model` tables (src/model/model.h) of every Intel model: every tree
node of levels 1-6 with its threshold, parent, description, tuning hint, locate-with
and metric groups; the Info.* metrics; the Bottleneck rows.

The semantics of the spreadsheet, as Intel's converter (intel/perfmon
scripts/create_perf_json.py) and perf's generated metric JSON apply them (read, not
copied):
  - a platform column whose cell is empty inherits the first filled cell of its
    chain of older columns (platforms.json "inherit": a client column never
    inherits a server cell);
  - a cell "#NA" means the metric does not exist there (and nor does its subtree);
    #NA inside a formula is 0;
  - "#Name" is an auxiliary formula (an Aux row), or a constant: #SMT_on, #EBS_Mode
    (= #core_wide < 1), #PERF_METRICS_MSR (1 where the column has it),
    #PMM_App_Direct (0: no persistent memory in App Direct mode);
  - "##Name" is the sum of Name's children, "##?Name" max(Name, that sum);
  - events carry modifiers :cN (cmask), :e1 (edge), :i1 (inv), :eq1 (cmask equals), :uMASK; a "_PS"
    suffix (the PEBS flavour) counts as the event itself; TOPDOWN.SLOTS:perf_metrics
    and :percore are TOPDOWN.SLOTS; PERF_METRICS.X are perf's topdown-* events;
  - "E*min($PEBS, C)" (an average retire latency from PEBS, capped at C) is counted
    as E*C; a cell with a bare $PEBS falls back to the next cell to its right, since
    counting mode has no retire latencies;
  - thresholds: "> x" (a fraction), "& P" when the parent must cross too,
    "; $issueXX" tags (kept with the metric groups).
A conditional on a constant whose branches read different events becomes variants
of the formula (enum model_when: SMT / no SMT, core-wide or not, and the
non-PERF_METRICS branch for imports only), so that a live run counts one branch
and an import takes the branch its events fit, as the hand tables did.
Metrics that need what a `perf stat` of one process cannot give (uncore events,
privilege-filtered events) are left out, with their dependents. A variant that
reads an event a live run cannot count (perf's tool events duration_time and
msr/tsc/, a named event with a umask or offcore_rsp term libpfm4 cannot spell)
is for imports only (MODEL_WHEN_IMPORT): perf's output holds those counts.

Python standard library only; deterministic output.
"""

import csv
import json
import re
import sys

WHEN_SMT, WHEN_NO_SMT, WHEN_CW, WHEN_NOT_CW, WHEN_IMPORT = 1, 2, 4, 8, 16
MAX_VARIANTS = 4


class Drop(Exception):
    """The metric cannot be computed by tdprof on this platform."""


# --------------------------------------------------------------------------
# The spreadsheet

class Sheet:
    def __init__(self, path, tag, source):
        with open(path, encoding='utf-8-sig', errors='replace', newline='') as f:
            rows = list(csv.reader(f))
        hdr = None
        for i, r in enumerate(rows):
            if r and r[0] == 'Key':
                hdr, start = r, i + 1
                break
        if hdr is None:
            raise SystemExit(f'{path}: no header row (Key, Level1, ...)')
        self.tag, self.source, self.path = tag, source, path
        self.hdr = hdr
        self.levels = [i for i, h in enumerate(hdr) if re.fullmatch(r'Level\d', h)]
        last = max(self.levels)
        end = hdr.index('Locate-with')
        self.columns = hdr[last + 1:end]
        self.col_index = {c: last + 1 + k for k, c in enumerate(self.columns)}
        self.rows = []
        for r in rows[start:]:
            r = r + [''] * (len(hdr) - len(r))
            self.rows.append(r)

    def field(self, r, name):
        return r[self.hdr.index(name)].strip() if name in self.hdr else ''

    def cells(self, r, chain):
        """The filled cells of the columns of chain, in its (inheritance) order."""
        out = []
        for c in chain:
            v = r[self.col_index[c]].strip()
            if v:
                out.append((c, v))
        return out


# --------------------------------------------------------------------------
# TMA expressions: tokens, parser

TOK = re.compile(r'''\s*(?:
    (?P<num>\d+\.\d*(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?|\.\d+)
  | (?P<name>(?:\#\#\?|\#\#|\#|\$)?[A-Za-z_][A-Za-z0-9_.]*(?::[A-Za-z0-9_=]+)*)
  | (?P<op>>=|<=|==|!=|[-+*/(),<>&|])
)''', re.X)


def tokenize(s):
    pos, out = 0, []
    s = s.strip()
    while pos < len(s):
        m = TOK.match(s, pos)
        if not m or m.end() == pos:
            if s[pos:].strip() == '':
                break
            raise Drop(f'cannot read {s[pos:pos + 20]!r}')
        pos = m.end()
        if m.group('num'):
            out.append(('num', float(m.group('num'))))
        elif m.group('name'):
            out.append(('name', m.group('name')))
        else:
            out.append(('op', m.group('op')))
    return out


class Parser:
    def __init__(self, toks):
        self.t, self.i = toks, 0

    def peek(self, v=None):
        if self.i >= len(self.t):
            return None
        tok = self.t[self.i]
        if v is None:
            return tok
        return tok if tok[1] == v else None

    def take(self, v):
        if not self.peek(v):
            raise Drop(f'expected {v!r}')
        self.i += 1

    def parse(self):
        e = self.ifelse()
        if self.i != len(self.t):
            raise Drop(f'junk after expression at token {self.i}')
        return e

    def ifelse(self):
        a = self.orx()
        if self.peek('if'):
            self.i += 1
            c = self.orx()
            self.take('else')
            b = self.ifelse()
            return ('if', a, c, b)
        return a

    def orx(self):
        a = self.andx()
        while self.peek('|'):
            self.i += 1
            a = ('bin', '|', a, self.andx())
        return a

    def andx(self):
        a = self.cmp()
        while self.peek('&'):
            self.i += 1
            a = ('bin', '&', a, self.cmp())
        return a

    def cmp(self):
        a = self.add()
        for op in ('>=', '<=', '==', '!=', '>', '<'):
            if self.peek(op):
                self.i += 1
                return ('bin', op, a, self.add())
        return a

    def add(self):
        a = self.mul()
        while self.peek('+') or self.peek('-'):
            op = self.t[self.i][1]
            self.i += 1
            a = ('bin', op, a, self.mul())
        return a

    def mul(self):
        a = self.unary()
        while self.peek('*') or self.peek('/'):
            op = self.t[self.i][1]
            self.i += 1
            a = ('bin', op, a, self.unary())
        return a

    def unary(self):
        if self.peek('-'):
            self.i += 1
            return ('neg', self.unary())
        return self.atom()

    def atom(self):
        tok = self.peek()
        if tok is None:
            raise Drop('unexpected end')
        if tok[0] == 'num':
            self.i += 1
            return ('num', tok[1])
        if tok == ('op', '('):
            self.i += 1
            e = self.ifelse()
            self.take(')')
            return e
        if tok[0] == 'name':
            self.i += 1
            if tok[1] in ('min', 'max', 'd_ratio') and self.peek('('):
                self.i += 1
                args = [self.ifelse()]
                while self.peek(','):
                    self.i += 1
                    args.append(self.ifelse())
                self.take(')')
                return ('call', tok[1], args)
            return ('name', tok[1])
        raise Drop(f'unexpected {tok[1]!r}')


def parse_tma(s):
    return Parser(tokenize(s)).parse()


def walk(e, fn):
    fn(e)
    if e[0] == 'bin':
        walk(e[2], fn), walk(e[3], fn)
    elif e[0] == 'neg':
        walk(e[1], fn)
    elif e[0] == 'if':
        walk(e[1], fn), walk(e[2], fn), walk(e[3], fn)
    elif e[0] == 'call':
        for a in e[2]:
            walk(a, fn)


def has_bare_pebs(e):
    """$PEBS outside min($PEBS, C)."""
    found = []

    def rec(x):
        if x[0] == 'call' and x[1] == 'min' and any(a == ('name', '$PEBS') for a in x[2]):
            for a in x[2]:
                if a != ('name', '$PEBS'):
                    rec(a)
            return
        if x == ('name', '$PEBS'):
            found.append(1)
        for c in children_of(x):
            rec(c)
    rec(e)
    return bool(found)


def children_of(x):
    if x[0] == 'bin':
        return [x[2], x[3]]
    if x[0] == 'neg':
        return [x[1]]
    if x[0] == 'if':
        return [x[1], x[2], x[3]]
    if x[0] == 'call':
        return list(x[2])
    return []


# --------------------------------------------------------------------------
# tdprof's expression language (src/model/expr.h)

PREC = {'if': 0, '|': 1, '&': 2, '<': 3, '>': 3, '<=': 3, '>=': 3, '==': 3, '!=': 3,
        '+': 4, '-': 4, '*': 5, '/': 5, 'neg': 6}


def emit(e, parent=0, right=False):
    k = e[0]
    if k == 'num':
        v = e[1]
        return repr(int(v)) if v == int(v) and abs(v) < 1e15 else repr(v)
    if k == 'ref':    # a formula, an event (already spelled) or a constant
        return e[1]
    if k == 'neg':
        s = '-' + emit(e[1], PREC['neg'])
        return f'({s})' if parent > PREC['neg'] else s
    if k == 'call':
        return f'{e[1]}(' + ', '.join(emit(a) for a in e[2]) + ')'
    if k == 'bin':
        p = PREC[e[1]]
        s = f'{emit(e[2], p)} {e[1]} {emit(e[3], p, True)}'
        need = parent > p or (right and parent == p)
        return f'({s})' if need else s
    if k == 'if':
        s = f'{emit(e[1], 1)} if {emit(e[2], 1)} else {emit(e[3], 0)}'
        return f'({s})' if parent > 0 or right else s
    raise AssertionError(e)


def refs(e):
    out = set()

    def fn(x):
        if x[0] == 'ref':
            out.add(x[1])
    walk2(e, fn)
    return out


def walk2(e, fn):
    fn(e)
    for c in children_of(e):
        walk2(c, fn)


def perf_escape(name):
    return re.sub(r'([-=,])', r'\\\1', name)


# --------------------------------------------------------------------------
# One model

def lname(name):
    s = name.replace('.', '_').replace(' ', '').lower()
    s = s.replace('%', 'pct')
    return re.sub(r'[^a-z0-9_]', '', s).strip('_')


class Model:
    def __init__(self, plat, sheet, cfg):
        self.p, self.sheet, self.cfg = plat, sheet, cfg
        self.col = plat['column']
        self.chain = plat['inherit'].split(';')
        for c in self.chain:
            if c not in sheet.columns:
                raise SystemExit(f'platforms.json: {plat["name"]}: no column {c} in {sheet.path}')
        self.name = plat['name']
        self.nodes = []      # dicts in sheet order
        self.info = {}       # name -> row info
        self.aux = {}        # '#Name' -> (column, cell)
        self.formulas = {}   # formula name -> dict(variants=[(when, expr-str, source)], deps)
        self.events = {}     # event name -> dict
        self.order = []      # formula emission order
        self.unreadable = [] # cells the parser could not read (said in the output)
        self.errata = None   # Intel's #Errata_Whitelist of the column
        self.pending = set()
        self.collect()

    # -- rows ------------------------------------------------------------
    def cell(self, r):
        """(column, text, parsed) of the row on this platform, or None."""
        for col, v in self.sheet.cells(r, self.chain):
            if v in ('#NA', 'N/A'):
                return None
            try:
                e = parse_tma(v)
            except Drop as d:
                self.unreadable.append(f'{self.sheet.field(r, "Level1") or "?"}...: {col} cell {v!r}: {d}')
                return None
            if has_bare_pebs(e):
                continue
            return (col, v, e)
        return None

    def collect(self):
        sh = self.sheet
        stack = {}
        self.tree_names = set()
        for r in sh.rows:
            key = r[0].strip()
            names = [(i, r[c].strip()) for i, c in enumerate(sh.levels) if r[c].strip()]
            if not names or key in ('.', 'Key'):
                continue
            level, name = names[0][0] + 1, names[0][1]
            if key.startswith(('FE', 'BAD', 'BE', 'RET')) and not key.startswith('BE_aux'):
                self.tree_names.add(name)
                parent = stack.get(level - 1) if level > 1 else None
                for k in [k for k in stack if k >= level]:
                    del stack[k]
                c = self.cell(r)
                if c is None or (level > 1 and parent is None):
                    continue   # not on this platform: nor is its subtree
                stack[level] = name
                self.nodes.append(dict(name=name, level=level, parent=parent, row=r, cell=c))
            elif key.startswith('Info') or key == 'Bottleneck':
                c = self.cell(r)
                if c:
                    self.info[name] = dict(name=name, group=key.strip(), row=r, cell=c,
                                           bottleneck=key == 'Bottleneck')
            elif key.startswith('Aux') and name == '#Errata_Whitelist':
                cells = sh.cells(r, self.chain)
                self.errata = cells[0][1] if cells and cells[0][1] != '#NA' else None
            elif key.startswith('Aux'):
                c = self.cell(r)
                if c:
                    self.aux[name] = c
        for x in self.cfg.get('extra_rows', []):
            if self.name not in x['models'] or self.col not in x['cells']:
                continue
            parent = next((n for n in self.nodes if n['name'] == x['parent']), None)
            if parent is None:
                continue
            r = [''] * len(sh.hdr)
            r[sh.hdr.index('Threshold')] = x['threshold']
            r[sh.hdr.index('Metric Description')] = x['description']
            text = x['cells'][self.col]
            self.nodes.append(dict(name=x['name'], level=parent['level'] + 1, parent=x['parent'], row=r,
                                   cell=(self.col, text, parse_tma(text)), source=x['source']))
        self.node_names = {n['name'] for n in self.nodes}
        self.absent = self.tree_names - self.node_names   # #NA here: 0 where a formula names them
        self.children = {}
        for n in self.nodes:
            if n['parent']:
                self.children.setdefault(n['parent'], []).append(n['name'])

    def node_formula(self, name):
        return 'tma_' + lname(name)

    def info_formula(self, name):
        g = self.info[name]['group']
        if g == 'Bottleneck':
            return 'tma_bottleneck_' + lname(name)
        g = lname(g.replace('Info.', '', 1))
        return f'tma_info_{g}_{lname(name)}'

    # -- names -----------------------------------------------------------
    def event(self, tok):
        """An event token of TMA to (spelling in formulas, event name)."""
        base, _, mods = tok.partition(':')
        base = re.sub(r'_PS$', '', base)
        pm = self.cfg['perf_metrics']
        if base in pm and not mods:
            n = pm[base]
            self.add_event(n, metrics=True, alias=base.lower())
            return perf_escape(n)
        terms = []
        for m in [m for m in mods.split(':') if m]:
            if m in ('perf_metrics', 'percore'):
                continue
            mm = re.fullmatch(r'c(\d+)', m)
            if mm:
                terms.append(f'cmask={int(mm.group(1))}')
                continue
            if m == 'e1':
                terms.append('edge')
                continue
            if m == 'i1':
                terms.append('inv')
                continue
            if m == 'eq1':   # Lion Cove's "cmask equals" bit (perf: eq=1 in cpu_core's format)
                terms.append('eq=1')
                continue
            mm = re.fullmatch(r'ocr_msr_val=(0x[0-9a-fA-F]+)', m)
            if mm:   # perf: OCR.X@offcore_rsp\=V@
                terms.append(f'offcore_rsp={mm.group(1).lower()}')
                continue
            mm = re.fullmatch(r'u(0x[0-9a-fA-F]+|\d+)', m)
            if mm:
                terms.append(f'umask={mm.group(1).lower()}')
                continue
            raise Drop(f'event modifier :{m} of {tok}')
        if base.startswith('UNC_'):
            raise Drop(f'{base} is not a core event of one process')
        if not terms:
            self.add_event(base)
            return base
        name = 'cpu/' + base + ',' + ','.join(terms) + '/'
        # libpfm4 has no attribute for another umask or an offcore response value:
        # such an event is read from imports only (perf spells it with the terms)
        live = not any(t.startswith(('umask=', 'offcore_rsp=', 'eq=')) for t in terms)
        spec = base.replace('.', ':', 1)
        for t in terms:
            if t.startswith('cmask='):
                spec += ':c=' + t[6:]
            elif t == 'edge':
                spec += ':e=1'
            elif t == 'inv':
                spec += ':i=1'
        self.add_event(name, spec=spec if live else None, live=live)
        return 'cpu@' + perf_escape(base + ',' + ','.join(terms)) + '@'

    def add_event(self, name, metrics=False, alias=None, spec=None, live=True):
        if name in self.events:
            return
        d = dict(name=name, metrics=metrics, aliases=[], spec=spec, live=live)
        if alias:
            d['aliases'].append(alias)
        self.events[name] = d

    def resolve(self, e, ctx):
        """A TMA tree to a list of (when, tdprof tree), variants in preference order."""
        k = e[0]
        if k == 'num':
            return [(0, e)]
        if k == 'name':
            return self.resolve_name(e[1], ctx)
        if k == 'neg':
            return [(w, ('neg', a)) for w, a in self.resolve(e[1], ctx)]
        if k == 'bin':
            return combine(self.resolve(e[2], ctx), self.resolve(e[3], ctx),
                           lambda a, b: fold(('bin', e[1], a, b)))
        if k == 'call':
            args = e[2]
            if e[1] == 'min' and ('name', '$PEBS') in args:
                rest = [a for a in args if a != ('name', '$PEBS')]
                return self.resolve(rest[0], ctx)
            vs = [(0, [])]
            for a in args:
                vs = combine(vs, self.resolve(a, ctx), lambda x, y: x + [y])
            return [(w, ('call', e[1], a)) for w, a in vs]
        if k == 'if':
            cond = e[2]
            kind = const_kind(cond)
            a = self.resolve(e[1], ctx)
            b = self.resolve(e[3], ctx)
            if kind in ('smt', 'ebs', 'pm'):
                ra = set().union(*(refs(x) for _, x in a))
                rb = set().union(*(refs(x) for _, x in b))
                if kind == 'pm':
                    if ra == rb:
                        return a
                    return a + [(w | WHEN_IMPORT, x) for w, x in b]
                if ra == rb:   # same events either way: keep the condition in the formula
                    c = ('ref', '#smt_on') if kind == 'smt' else ('bin', '<', ('ref', '#core_wide'), ('num', 1))
                    return combine(a, b, lambda x, y: ('if', x, c, y))
                fa, fb = (WHEN_SMT, WHEN_NO_SMT) if kind == 'smt' else (WHEN_NOT_CW | WHEN_SMT, WHEN_CW)
                out = [(w | fa, x) for w, x in a] + [(w | fb, x) for w, x in b]
                return [(norm(w), x) for w, x in out if ok_when(w)]
            c = self.resolve(cond, ctx)
            if len(c) == 1 and c[0][1][0] == 'num':
                return a if c[0][1][1] else b
            vs = combine(a, c, lambda x, y: (x, y))
            return combine(vs, b, lambda xy, z: ('if', xy[0], xy[1], z))
        raise AssertionError(e)

    def resolve_name(self, n, ctx):
        if n == '#NA':
            return [(0, ('num', 0.0))]
        if n.startswith('##?'):
            base = n[3:]
            s = self.sum_children(base, ctx)
            return [(w, ('call', 'max', [('ref', self.ref_formula(base, ctx)), x])) for w, x in s]
        if n.startswith('##'):
            return self.sum_children(n[2:], ctx)
        if n in ('#SMT_on',):
            return [(0, ('ref', '#smt_on'))]
        if n == '#EBS_Mode':
            return [(0, ('bin', '<', ('ref', '#core_wide'), ('num', 1)))]
        if n == '#PERF_METRICS_MSR':
            return [(0, ('num', 1.0))]
        if n == '#PMM_App_Direct':   # perf: #has_pmem > 0; tdprof assumes no persistent memory
            return [(0, ('num', 0.0))]
        if n == 'TSC':   # perf's msr/tsc/ tool event
            self.add_event('msr/tsc/', live=False)
            return [(0, ('ref', 'msr@tsc@'))]
        if n == 'Time':  # perf's duration_time, printed in nanoseconds
            self.add_event('duration_time', live=False)
            return [(0, ('bin', '/', ('ref', 'duration_time'), ('num', 1e9)))]
        if n == '$PEBS':
            raise Drop('needs PEBS retire latencies')
        if n.startswith('#') or n in self.aux:
            if n not in self.aux:
                raise Drop(f'no {n} on {self.col}')
            col, text, tree = self.aux[n]
            if tree[0] == 'num':
                return [(0, tree)]
            if tree[0] == 'neg' and tree[1][0] == 'num':
                return [(0, ('num', -tree[1][1]))]
            fname = 'tma_aux_' + lname(n.lstrip('#'))
            self.need_formula(fname, tree, f'{col}', n)
            return [(0, ('ref', fname))]
        if n in self.node_names:
            return [(0, ('ref', self.ref_formula(n, ctx)))]
        if n in self.info:
            return [(0, ('ref', self.ref_formula(n, ctx)))]
        if n in self.absent:   # a node this platform does not have (#NA): as #NA, 0
            return [(0, ('num', 0.0))]
        if re.fullmatch(r'[A-Z0-9_]+\.[A-Z0-9_.]+(:[A-Za-z0-9_=]+)*', n) or \
           re.fullmatch(r'PERF_METRICS\.[A-Z_]+', n):
            return [(0, ('ref', self.event(n)))]
        raise Drop(f'unknown name {n}')

    def ref_formula(self, n, ctx):
        if n in self.node_names:
            f = self.node_formula(n)
            node = next(x for x in self.nodes if x['name'] == n)
            self.need_formula(f, node['cell'][2], node['cell'][0], n, node.get('source'))
            return f
        if n in self.info:
            f = self.info_formula(n)
            i = self.info[n]
            self.need_formula(f, i['cell'][2], i['cell'][0], n)
            return f
        raise Drop(f'unknown name {n}')

    def sum_children(self, n, ctx):
        kids = [k for k in self.children.get(n, []) if self.available(self.node_formula(k), k)]
        if not kids:
            return [(0, ('num', 0.0))]
        e = ('ref', self.ref_formula(kids[0], ctx))
        for k in kids[1:]:
            e = ('bin', '+', e, ('ref', self.ref_formula(k, ctx)))
        return [(0, e)]

    def available(self, fname, tma_name):
        try:
            if tma_name in self.node_names:
                self.ref_formula(tma_name, None)
            return self.formulas.get(fname, {}).get('ok', False)
        except Drop:
            return False

    def need_formula(self, fname, tree, col, tma_name, source=None):
        f = self.formulas.get(fname)
        if f is not None:
            if f.get('busy'):
                raise Drop(f'{fname} depends on itself')
            if not f['ok']:
                raise Drop(f['why'])
            return
        f = self.formulas[fname] = dict(name=fname, busy=True, ok=False, why='', tma=tma_name,
                                        source=source or f"{self.sheet.source}, {col} column ({tma_name})")
        try:
            vs = self.resolve(tree, fname)
            seen, out = set(), []
            for w, x in vs:
                s = emit(x)
                if s in seen:
                    continue
                seen.add(s)
                if any(r.replace('\\', '') in self.events and not self.events[r.replace('\\', '')]['live']
                       for r in tdprof_names(s)):
                    w |= WHEN_IMPORT   # an event no live run can count (perf's tool events, raw terms)
                out.append((w, s, x))
            if len(out) > MAX_VARIANTS:
                raise Drop(f'{fname}: {len(out)} variants')
            f['variants'] = out
            f['ok'] = True
            self.order.append(fname)
        except Drop as d:
            f['why'] = str(d)
            f['busy'] = False
            raise
        f['busy'] = False

    # -- the model -------------------------------------------------------
    def build(self):
        self.out_nodes = []
        self.left_out = []
        dropped = set()
        for n in self.nodes:
            if n['parent'] in dropped:
                dropped.add(n['name'])
                continue
            try:
                f = self.ref_formula(n['name'], None)
            except Drop as d:
                self.left_out.append(f'{n["name"]}: {d}')
                dropped.add(n['name'])
                continue
            self.out_nodes.append((n, f))
        self.node_names -= dropped
        # level 1 first in tdprof's order (design.md: retiring, bad_speculation, frontend_bound,
        # backend_bound, as every model lists them), then the deeper nodes in Intel's order
        l1 = list(self.cfg['level1_thresholds'])
        key = self.cfg['node_keys']
        self.out_nodes.sort(key=lambda nf: (nf[0]['level'] != 1,
                                            l1.index(key.get(nf[0]['name'], lname(nf[0]['name'])))
                                            if nf[0]['level'] == 1 else 0))
        self.out_metrics = []
        for name, i in self.info.items():
            try:
                f = self.ref_formula(name, None)
            except Drop:
                continue
            self.out_metrics.append((i, f))
        self.apply_import_variants()

    def apply_import_variants(self):
        for iv in self.cfg['import_variants']:
            if self.name not in iv['models']:
                continue
            f = self.formulas.get(iv['formula'])
            if not f or not f['ok']:
                raise SystemExit(f'platforms.json: {self.name} has no formula {iv["formula"]} for its import variant')
            for nm in tdprof_names(iv['expr']):
                if nm in self.formulas:
                    continue
                plain = nm.replace('\\', '')
                if plain in self.events:
                    continue
                if plain in self.cfg['import_events'] or re.fullmatch(r'[A-Z0-9_]+\.[A-Z0-9_.]+', plain):
                    self.add_event(plain)
                elif re.fullmatch(r'cpu/[A-Z0-9_]+\.[A-Z0-9_.]+(,[a-z_]+(=[0-9a-fx]+)?)+/', plain):
                    self.add_event(plain, live=False)   # perf's spelling with terms (cmask=4): imports only
                else:
                    raise SystemExit(f'platforms.json: {self.name}: {iv["formula"]}: unknown name {nm}')
            if len(f['variants']) >= MAX_VARIANTS:
                raise SystemExit(f'{self.name}: {iv["formula"]}: too many variants')
            f['variants'].append((WHEN_IMPORT, iv['expr'], None, iv['source']))

    def reachable(self):
        """Formulas the nodes and metrics reach, dependencies first."""
        seen, out = set(), []

        def visit(fn):
            if fn in seen:
                return
            seen.add(fn)
            for v in self.formulas[fn]['variants']:
                for r in tdprof_names(v[1]):
                    if r in self.formulas:
                        visit(r)
            out.append(fn)
        for _, f in self.out_nodes:
            visit(f)
        for _, f in self.out_metrics:
            visit(f)
        return out

    def used_events(self, formulas):
        used = set()
        for fn in formulas:
            for v in self.formulas[fn]['variants']:
                for r in tdprof_names(v[1]):
                    if r not in self.formulas:
                        used.add(r.replace('\\', ''))
        return used


def tdprof_names(expr):
    out = []
    for m in re.finditer(r"(?:[a-z_]+@(?:[^@\\]|\\.)*@)|(?:(?:[A-Za-z_]|\\.)(?:[A-Za-z0-9_.]|\\.)*)", expr):
        s = m.group(0)
        if '@' in s:
            pmu, inner = s[:-1].split('@', 1)
            out.append(pmu + '/' + inner.replace('\\', '') + '/')
            continue
        if s in ('if', 'else', 'max', 'min', 'd_ratio'):
            continue
        start = m.start()
        if start > 0 and expr[start - 1] == '#':
            continue
        if re.fullmatch(r'\d.*', s) or re.fullmatch(r'[eE]\d*', s):
            continue
        out.append(s)
    return out


def const_kind(c):
    if c == ('name', '#SMT_on'):
        return 'smt'
    if c == ('name', '#EBS_Mode'):
        return 'ebs'
    if c == ('name', '#PERF_METRICS_MSR'):
        return 'pm'
    return None


def ok_when(w):
    return not ((w & WHEN_SMT and w & WHEN_NO_SMT) or (w & WHEN_CW and w & WHEN_NOT_CW))


def norm(w):
    if w & WHEN_NO_SMT:   # without SMT a thread is its core: core-wide or not is moot
        w &= ~(WHEN_CW | WHEN_NOT_CW)
    return w


def combine(xs, ys, fn):
    out = []
    for wx, x in xs:
        for wy, y in ys:
            w = wx | wy
            if ok_when(w):
                out.append((norm(w), fn(x, y)))
    return out


def fold(e):
    """Fold arithmetic on two numbers (TMA writes 0 + X and #NA * Y)."""
    if e[0] == 'bin' and e[2][0] == 'num' and e[3][0] == 'num' and e[1] in '+-*/':
        a, b = e[2][1], e[3][1]
        if e[1] == '/' and b == 0:
            return e
        return ('num', {'+': a + b, '-': a - b, '*': a * b, '/': a / b if b else 0}[e[1]])
    return e


# --------------------------------------------------------------------------
# Thresholds and text

def node_threshold(text):
    t = text.split(';')[0].strip()
    m = re.search(r'>\s*([0-9.]+)', t)
    if not m:
        return None, True
    return float(m.group(1)) * 100.0, '& P' not in t


def metric_threshold(text):
    t = text.split(';')[0].strip()
    m = re.fullmatch(r'>\s*([0-9.]+)', t)
    return float(m.group(1)) if m else None


def locate_with(text, column):
    if not text:
        return None
    m = re.fullmatch(r'(.+) \? (.+) : (.+)', text)
    if m:
        text = m.group(2) if column in m.group(1).split('/') or any(
            p in m.group(1).split('/') for p in column.split('/')) else m.group(3)
    return None if text == '#NA' else text


def cstr(s):
    if s is None:
        return 'NULL'
    s = s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', ' ').replace('\r', ' ')
    s = ''.join(ch if 32 <= ord(ch) < 127 else '?' for ch in s)
    return '"' + s + '"'


def cnum(v):
    return 'THR_NONE' if v is None else repr(float(v))


WHEN_C = [(WHEN_SMT, 'MODEL_WHEN_SMT'), (WHEN_NO_SMT, 'MODEL_WHEN_NO_SMT'), (WHEN_CW, 'MODEL_WHEN_CORE_WIDE'),
          (WHEN_NOT_CW, 'MODEL_WHEN_NOT_CORE_WIDE'), (WHEN_IMPORT, 'MODEL_WHEN_IMPORT')]


def cwhen(w):
    parts = [n for b, n in WHEN_C if w & b]
    return ' | '.join(parts) if parts else '0'


def canon(name):
    """Roughly model_event_key(): enough to see two spellings collide."""
    n = name.lower()
    if '/' in n:
        n = n.split('/', 1)[1].rstrip('/')
    return re.sub(r'[.:_-]', '_', n)


# --------------------------------------------------------------------------
# Output

def write_model(out, mdl, cfg):
    p, ident = mdl.p, 'model_' + mdl.name
    formulas = mdl.reachable()
    used = mdl.used_events(formulas)
    names = [e for e in mdl.events if e in used]
    fixed = cfg['fixed_counters']
    taken = {canon(e) for e in names}
    out.append(f'/* {mdl.name}: {mdl.sheet.source}, column {mdl.col} */')
    for lo in mdl.left_out + mdl.unreadable:
        out.append(f'/* left out (and its subtree): {lo} */'.replace('*/', '* /', 1) if False else
                   '/* left out (and its subtree): ' + lo.replace('*/', '* /') + ' */')
    out.append(f'static const struct model_event {mdl.name}_events[] = {{')
    pmu = p.get('pmu') or 'cpu'
    for en in names:
        e = mdl.events[en]
        al = list(e['aliases']) + [a for a in cfg['aliases'].get(en, [])]
        al = [a for a in al if canon(a) not in taken or canon(a) == canon(en)]
        al = [a for a in dict.fromkeys(al) if canon(a) != canon(en) or a.lower() != en.lower()]
        fields = [f'.name = {cstr(en)}']
        if al:
            fields.append('.aliases = { ' + ', '.join(cstr(a) for a in al) + ' }')
        spec = p.get('live_specs', {}).get(en) or e['spec'] or cfg['live_specs'].get(en)
        if e['metrics']:
            spec = f'{pmu}/{en}/'
            fields.append('.counter = MODEL_CTR_METRICS')
        elif en == 'TOPDOWN.SLOTS':
            spec = f'{pmu}/slots/'
        if spec:
            fields.append(f'.spec = {cstr(spec)}')
        if en in fixed and not e['metrics']:
            fields.append(f'.counter = MODEL_CTR_FIXED, .fixed_idx = {fixed[en]}')
        if en in cfg['leader_events']:
            fields.append('.leader = true')
        if en in cfg['clock_events']:
            fields.append('.clock = true')
        out.append('\t{ ' + ', '.join(fields) + ' },')
    out.append('};')
    out.append(f'static const struct model_formula {mdl.name}_formulas[] = {{')
    for fn in formulas:
        f = mdl.formulas[fn]
        vs = f['variants']
        exprs = ', '.join(cstr(v[1]) for v in vs)
        whens = ', '.join(cwhen(v[0]) for v in vs)
        line = f'\t{{ .name = {cstr(fn)}, .expr = {{ {exprs} }}, .when = {{ {whens} }}, .source = {cstr(f["source"])}'
        vsrc = [v[3] if len(v) > 3 else None for v in vs]
        if any(vsrc):
            line += ', .vsource = { ' + ', '.join(cstr(s) for s in vsrc) + ' }'
        out.append(line + ' },')
    out.append('};')
    out.append(f'static const struct model_node_def {mdl.name}_nodes[] = {{')
    l1 = cfg['level1_thresholds']
    keys = cfg['node_keys']
    for n, fn in mdl.out_nodes:
        r = n['row']
        key = keys.get(n['name'], lname(n['name']))
        pkey = keys.get(n['parent'], lname(n['parent'])) if n['parent'] else None
        thr, alone = node_threshold(mdl.sheet.field(r, 'Threshold'))
        if n['level'] == 1:
            thr, alone = float(l1[key]), True
        kids = mdl.children.get(n['name'], [])
        kids = [k for k in kids if k in mdl.node_names]
        exact = n['level'] == 1 and len(kids) == 2 and any(
            re.search(r'\b' + re.escape(n['name']) + r'\b', next(x for x in mdl.nodes if x['name'] == k)['cell'][1])
            for k in kids)
        vocab2 = {'fetch_latency', 'fetch_bandwidth', 'branch_mispredicts', 'machine_clears', 'memory_bound',
                  'core_bound', 'light_operations', 'heavy_operations'}
        extra = n['level'] == 2 and key not in vocab2
        groups = mdl.sheet.field(r, 'Metric Group')
        issues = [t.strip() for t in mdl.sheet.field(r, 'Threshold').split(';')[1:] if t.strip().startswith('$issue')]
        if issues:
            groups = ';'.join([g for g in [groups] if g] + [i[1:] for i in issues])
        fields = [f'.key = {cstr(key)}', f'.parent = {cstr(pkey)}', f'.formula = {cstr(fn)}',
                  f'.threshold = {cnum(thr)}', f'.level = {n["level"]}', f'.label = {cstr(n["name"].replace("_", " "))}']
        if extra:
            fields.append('.extra = true')
        if kids and not exact:
            fields.append('.approx_children = true')
        if alone and n['level'] > 1:
            fields.append('.own_threshold = true')
        desc = mdl.sheet.field(r, 'Metric Description')
        hint = mdl.sheet.field(r, 'Tuning Hint')
        lw = locate_with(mdl.sheet.field(r, 'Locate-with'), mdl.col)
        for k, v in (('description', desc), ('hint', hint), ('locate_with', lw), ('groups', groups)):
            if v:
                fields.append(f'.{k} = {cstr(v)}')
        out.append('\t{ ' + ', '.join(fields) + ' },')
    out.append('};')
    out.append(f'static const struct model_metric_def {mdl.name}_metrics[] = {{')
    for i, fn in mdl.out_metrics:
        r = i['row']
        kind = 'MODEL_METRIC_BOTTLENECK' if i['bottleneck'] else 'MODEL_METRIC_INFO'
        unit = 'percent_of_slots' if i['bottleneck'] else (mdl.sheet.field(r, 'Count Domain') or 'ratio')
        thr = metric_threshold(mdl.sheet.field(r, 'Threshold'))
        fields = [f'.key = {cstr(i["name"])}', f'.formula = {cstr(fn)}', f'.kind = {kind}',
                  f'.group = {cstr(i["group"])}', f'.unit = {cstr(unit)}',
                  f'.description = {cstr(mdl.sheet.field(r, "Metric Description") or None)}',
                  f'.threshold = {cnum(thr)}']
        if i['bottleneck'] and mdl.sheet.field(r, 'Metric Group'):
            # its "Bv.." group names the tree nodes it covers (why's Bottlenecks lead)
            fields.append(f'.groups = {cstr(mdl.sheet.field(r, "Metric Group"))}')
        out.append('\t{ ' + ', '.join(fields) + ' },')
    out.append('};')
    al = ', '.join(cstr(a) for a in p.get('aliases', []))
    comp = p.get('companion')
    out.append(f'const struct model {ident} = {{')
    out.append(f'\t.name = {cstr(mdl.name)}, .aliases = {{ {al} }},')
    out.append(f'\t.description = {cstr(p["description"])},')
    errata = f'; the formulas account for errata {mdl.errata} (TMA #Errata_Whitelist)' if mdl.errata else ''
    out.append(f'\t.sources = {cstr(mdl.sheet.source + ", column " + mdl.col + errata + "; data/intel/platforms.json")},')
    out.append('\t.vendor = MODEL_VENDOR_INTEL, .kind = MODEL_KIND_SLOTS,')
    if p.get('core_type'):
        companion = f', .companion = &model_{comp}' if comp else ''  # a core type whose partner has no model yet
        out.append(f'\t.core_type = {cstr(p["core_type"])}, .pmu = {cstr(p["pmu"])}{companion},')
    out.append(f'\t.slots = {p["slots"]}, .gp_counters = {p["gp"]}, .fixed_counters = {p["fixed"]},')
    out.append(f'\t.events = {mdl.name}_events, .nr_events = ARRAY_SIZE({mdl.name}_events),')
    out.append(f'\t.formulas = {mdl.name}_formulas, .nr_formulas = ARRAY_SIZE({mdl.name}_formulas),')
    out.append(f'\t.nodes = {mdl.name}_nodes, .nr_nodes = ARRAY_SIZE({mdl.name}_nodes),')
    out.append(f'\t.metrics = {mdl.name}_metrics, .nr_metrics = ARRAY_SIZE({mdl.name}_metrics),')
    out.append('};')
    out.append('')
    return len(names), len(formulas), len(mdl.out_nodes), len(mdl.out_metrics)


def main(argv):
    if len(argv) < 6:
        raise SystemExit('usage: gen-intel.py TMA_Metrics-full.csv E-core_TMA_Metrics.csv platforms.json OUT.c OUT.h')
    with open(argv[3], encoding='utf-8') as f:
        cfg = json.load(f)
    sheets = {'full': Sheet(argv[1], 'full', cfg['sources']['full']),
              'ecore': Sheet(argv[2], 'ecore', cfg['sources']['ecore'])}
    out = ['/* Generated by src/model/gen/gen-intel.py from data/intel/ (Intel TMA, BSD-3-Clause): do not edit. */',
           '#include "model/tables/tables.h"', '#include "intel-models.h"', '']
    stats = []
    for p in cfg['models']:
        sh = sheets[p['csv']]
        if p['column'] not in sh.columns:
            raise SystemExit(f'platforms.json: {p["name"]}: no column {p["column"]} in {sh.path}')
        mdl = Model(p, sh, cfg)
        mdl.build()
        pw = mdl.aux.get('#Pipeline_Width')
        if pw and pw[2][0] == 'num' and pw[2][1] != p['slots']:
            raise SystemExit(f'platforms.json: {p["name"]}: slots {p["slots"]} but #Pipeline_Width {pw[2][1]}')
        stats.append((p['name'],) + write_model(out, mdl, cfg))
    with open(argv[4], 'w', encoding='utf-8') as f:
        f.write('\n'.join(out) + '\n')
    names = [p['name'] for p in cfg['models']]
    hdr = ['/* Generated by src/model/gen/gen-intel.py from data/intel/platforms.json: do not edit. */',
           '#ifndef TDPROF_MODEL_INTEL_MODELS_H', '#define TDPROF_MODEL_INTEL_MODELS_H', '',
           '#include "model/model.h"', '']
    hdr += [f'extern const struct model model_{n};' for n in names]
    hdr += ['', '/* The Intel models in platforms.json order (the registry, model.c) */',
            '#define INTEL_MODEL_LIST ' + ', '.join(f'&model_{n}' for n in names), '', '#endif']
    with open(argv[5], 'w', encoding='utf-8') as f:
        f.write('\n'.join(hdr) + '\n')
    if '-v' in sys.argv[6:]:
        for s in stats:
            print('gen-intel: %-15s %3d events %3d formulas %3d nodes %3d metrics' % s, file=sys.stderr)


if __name__ == '__main__':
    main(sys.argv)
