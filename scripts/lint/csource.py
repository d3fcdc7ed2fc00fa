"""Reading C sources for the lint checks: comments and string literals blanked out
(so a word in a comment or a message is not code), include lines kept."""
import os
import re

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)


def strip(text):
    """text with comments, string and character literals replaced by spaces
    (newlines kept, so line numbers still hold)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r'[^\n]', ' ', text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def sources(root, dirs):
    """(path relative to root, text) of every .c and .h under root/dirs, sorted."""
    for d in dirs:
        top = os.path.join(root, d)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(('.c', '.h')):
                    p = os.path.join(dirpath, f)
                    with open(p, encoding='utf-8', errors='replace') as fh:
                        yield os.path.relpath(p, root), fh.read()


def line_of(text, pos):
    return text.count('\n', 0, pos) + 1
