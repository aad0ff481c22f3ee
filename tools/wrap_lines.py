#!/usr/bin/env python3
"""Wrap the code lines of notebooks that are longer than 120 characters, proving every cell unchanged in meaning.

Usage: tools/wrap_lines.py [--check] [--width N] NB.ipynb... (a `.py` file is taken whole, as one cell)

For every code cell it rewrites only the lines longer than `--width` (120), one break at a time, and keeps a break only
if the cell's syntax tree is exactly the same after it: `ast.dump(ast.parse(old)) == ast.dump(ast.parse(new))`, with
IPython lines (`%magic`, `!shell`) read as `pass` in both; nbdev's `#|` directives are comments and stay as they are.
A cell that does not parse is left as it was and reported. The breaks, tried in this order on each long line:

- a full-line comment is wrapped to several comment lines with the same indentation;
- a long trailing comment moves to its own (wrapped) lines above its line;
- inside brackets: a break after a `,` (or before `and`, `or`, `if`, `else`, `for`, `+`, `-`, `|`) at the shallowest
  bracket that leaves a well-filled first line, the next line aligned just after that bracket (or indented 4 more
  than the statement when that is too far right, or as an earlier line already inside that bracket);
- a string literal is split at a space into adjacent literals (`'a b'` -> `'a ' 'b'`, the same constant; f-strings
  only outside their `{...}` fields), parenthesized when it was not inside brackets (a long docstring, say);
- `from m import a, b` gets parentheses; `import a, b` a backslash after a comma (it has no other way);
- `a; b` is split at its `;`; a one-line compound statement (`if c: body`) puts its body on the next line.

Lines it cannot shorten stay and are counted. `--check` prints the counts per notebook and writes nothing.
Markdown cells are left alone.
"""
import argparse, ast, io, itertools, json, keyword, re, textwrap, tokenize
from collections import namedtuple

WIDTH = 120
Tok = namedtuple('Tok', 'type string srow scol erow ecol stack lrow')  # `stack`: open brackets (row, col) around it
SKIP = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
BEFORE = {'and', 'or', 'if', 'else', 'for', '+', '-', '|'}     # a break may go before these (never after)
COMPOUND = {'if', 'elif', 'else', 'for', 'while', 'with', 'try', 'except', 'finally', 'def', 'class'}
KEEP_COMMENT = re.compile(r'#\s*(noqa|type:|pragma|fmt:|pylint:)')  # tools read these on their line: never moved


def is_magic(line: str) -> bool: return line.lstrip().startswith(('%', '!'))


def masked(lines: list) -> str:
    "The cell's text as Python reads it: IPython lines (`%`, `!`) become `pass` at the same indentation."
    return '\n'.join(l[:len(l) - len(l.lstrip())] + 'pass' if is_magic(l) else l for l in lines)


def tree(lines: list):
    "`ast.dump` of the cell, or None if it does not parse."
    try: return ast.dump(ast.parse(masked(lines)))
    except (SyntaxError, ValueError): return None


def tokens(lines: list) -> list:
    "The cell's tokens (an f-string as one STRING token), each with its open brackets and its logical line's first row."
    out, stack, lrow, fs = [], [], None, []
    starts = {getattr(tokenize, 'FSTRING_START', -1)}; ends = {getattr(tokenize, 'FSTRING_END', -1)}
    for t in tokenize.generate_tokens(io.StringIO(masked(lines) + '\n').readline):
        if t.type in starts: fs.append(t); continue                 # Python >= 3.12 splits f-strings into tokens
        if fs:
            if t.type in ends:
                s = fs.pop()
                text = s.line[s.start[1]:t.end[1]] if s.start[0] == t.end[0] else ''
                if not fs: out.append(Tok(tokenize.STRING, text, *s.start, *t.end, tuple(stack), lrow))
            continue
        if t.type == tokenize.OP and t.string in ')]}' and stack: stack.pop()
        if lrow is None and t.type not in SKIP | {tokenize.COMMENT}: lrow = t.start[0]
        out.append(Tok(t.type, t.string, *t.start, *t.end, tuple(stack), lrow))
        if t.type == tokenize.OP and t.string in '([{': stack.append(t.start)
        if t.type == tokenize.NEWLINE: lrow = None
    return out


def indent(line: str) -> int: return len(line) - len(line.lstrip())


def comment_lines(text: str, ind: int, width: int) -> list:
    "Comment `text` as lines of at most `width` characters at indentation `ind` (a word too long stays whole)."
    return [' ' * ind + '# ' + l for l in textwrap.wrap(text, max(width - ind - 2, 20), break_long_words=False,
                                                         break_on_hyphens=False)]


def wrap_comment(lines, n, ts, width):
    "A full-line comment on row `n` wrapped to several lines."
    c = [t for t in ts if t.srow == n + 1 and t.type not in SKIP][:1]
    if not c or c[0].type != tokenize.COMMENT or c[0].scol != indent(lines[n]): return None
    if c[0].string.startswith(('#|', '#!')): return None                 # nbdev directives, shebangs
    if KEEP_COMMENT.match(c[0].string): return None
    new = comment_lines(c[0].string[1:].strip(), c[0].scol, width)
    return lines[:n] + new + lines[n + 1:] if len(new) > 1 and max(map(len, new)) <= width else None


def move_comment(lines, n, ts, width):
    "A trailing comment on row `n` moved to its own lines above it."
    row = [t for t in ts if t.srow == n + 1 and t.type not in SKIP]
    if len(row) < 2 or row[-1].type != tokenize.COMMENT or KEEP_COMMENT.match(row[-1].string): return None
    if any(t.srow < n + 1 <= t.erow for t in ts if t.type == tokenize.STRING): return None   # row starts in a string
    c, line = row[-1], lines[n]
    new = comment_lines(c.string[1:].strip(), indent(line), width)
    return lines[:n] + new + [line[:c.scol].rstrip()] + lines[n + 1:]


def first_tokens(ts) -> dict:
    "Row -> its first token (not a comment), for rows that start a token."
    out = {}
    for t in ts:
        if t.type not in SKIP and t.type != tokenize.COMMENT: out.setdefault(t.srow, t)
    return out


def on_row(ts, n) -> list: return [t for t in ts if t.srow == n + 1 and t.type not in SKIP]


def cont_col(lines, ts, br, rest: str, width: int, lrow: int) -> tuple:
    "`(column, hanging)` of a new line in bracket `br`: as lines already there, else after `br`, else indented."
    for r, t in sorted(first_tokens(ts).items()):
        if r > br[0] and t.stack and t.stack[-1] == br and t.string not in ')]}': return t.scol, False
    aligned, base = br[1] + 1, indent(lines[lrow - 1])
    head = on_row(ts, lrow - 1)[:1]
    compound = bool(head) and head[0].string in COMPOUND
    if compound and aligned == base + 4: return base + 8, False          # `if (`: not at the body's indentation
    if aligned + len(rest) <= width or aligned <= width // 2: return aligned, False
    return base + (8 if compound else 4), True


def ends_operand(t) -> bool:
    "Whether token `t` can end an operand (so that `+`, `-`, `if`, ... after it are binary)."
    if t.string in ')]}': return True
    if t.type == tokenize.NAME: return not keyword.iskeyword(t.string) or t.string in ('True', 'False', 'None')
    return t.type in (tokenize.NUMBER, tokenize.STRING)


def join_next(lines, n, ts, last, width) -> list:
    "Row `n + 1` joined onto the new row after `n` when it continues the same bracket after `last` (`,` or a string)."
    nxt = first_tokens(ts).get(n + 2)
    if n + 1 >= len(lines) or not nxt or nxt.scol != indent(lines[n + 1]) or nxt.stack != last.stack: return []
    if not (last.string == ',' or last.type == nxt.type == tokenize.STRING) or not last.stack: return []
    if any(t.type == tokenize.COMMENT and t.srow == n + 2 for t in ts): return []    # a comment stays on its line
    return [lines[n + 1].lstrip()]


LIT = r"""([rRbBfFuU]{0,2})(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)")"""   # prefix, body in '...' or "..."


def joined(tail: str, more: list, width: int, long: bool):
    "`tail` and the next row's text `more` on one line (two literals of the same kind become one), or None."
    if not more: return None
    a, b = re.search(r'(?<![\w\'"])' + LIT + '$', tail), re.match(LIT, more[0])
    line = tail + ' ' + more[0]
    if a and b and (a.group(2) is None) == (b.group(2) is None):       # the same quotes
        pa, pb, ba, bb = (set(a.group(1).lower()), set(b.group(1).lower()), a.group(2) or a.group(3),
                          b.group(2) or b.group(3))
        q = "'" if a.group(2) is not None else '"'
        if pa == pb or pa ^ pb == {'f'} and not set(ba if 'f' in pb else bb) & set('{}'):
            line = tail[:a.start()] + (a.group(1) if 'f' in pa else b.group(1)) + q + ba + bb + q + more[0][b.end():]
    return line if len(line) <= width or long else None


def break_code(lines, n, ts, width):
    "Row `n` broken inside brackets after a `,` or before an operator, at the best place left of `width`."
    row, line, cands, state = on_row(ts, n), lines[n], [], {}
    for i, t in enumerate(row):
        if t.string in ('for', 'lambda'): state[t.stack] = t.string       # `for a, b in`, `lambda a, b:`: no break
        elif t.string in ('in', ':') and state.get(t.stack) == {'in': 'for', ':': 'lambda'}[t.string]:
            state[t.stack] = None
        if not t.stack or i == 0: continue
        prv, nxt = row[i - 1], row[i + 1] if i + 1 < len(row) else None
        if t.string == ',' and nxt and nxt.string not in ')]}' and nxt.type != tokenize.COMMENT:
            if state.get(t.stack): continue
            cut, go = t.ecol, nxt.scol
        elif t.string in BEFORE and t.type in (tokenize.NAME, tokenize.OP) and ends_operand(prv):
            cut, go = t.scol, t.scol
        else: continue
        head = line[:cut].rstrip()
        if len(head) > width or not head.strip(): continue
        col, hang = cont_col(lines, ts, t.stack[-1], line[go:], width, t.lrow)
        if col >= go: continue
        short = len(head) < indent(line) + (width - indent(line)) // 3
        cands.append((hang, col > width // 2, short, len(t.stack), t.string != ',', -cut, t, head,
                      ' ' * col + line[go:]))
    if not cands: return None
    *_, tok, head, tail = min(cands)
    more = join_next(lines, n, ts, row[-1], width) if row[-1].stack == tok.stack else []
    one = joined(tail, more, width, n + 1 < len(lines) and len(lines[n + 1]) > width)
    return lines[:n] + [head, one] + lines[n + 2:] if one else lines[:n] + [head, tail] + lines[n + 1:]


def split_at(s: str, room: int):
    "Split string literal `s` at a space into two literals, the first at most `room` long; None if it cannot."
    m = re.match(r'([rRbBfFuU]{0,2})(\'|")', s)
    if not m or s[len(m.group(1)):].startswith(m.group(2) * 3): return None     # triple-quoted: left alone
    pre, q = m.groups()
    if 'r' in pre.lower(): return None                                  # a regex or a path: kept whole
    body, f, depth, space, nl, i = s[len(pre) + 1:-1], 'f' in pre.lower(), 0, None, None, 0
    while i < len(body):
        ch, fits = body[i], len(pre) + i + 3 <= room and i + 1 < len(body)
        if f and ch in '{}' and body[i:i + 2] == ch * 2 and depth == 0: i += 2; continue
        if f and ch == '{': depth += 1
        elif f and ch == '}': depth -= 1
        elif ch == '\\':
            if body[i + 1:i + 2] == 'n' and depth == 0 and len(pre) + i + 4 <= room and i + 2 < len(body): nl = i + 2
            i += 2; continue
        elif ch == ' ' and depth == 0 and fits: space = i + 1
        i += 1
    best = nl if nl and nl >= room // 2 else space                     # after a `\n` if that fills half the line
    if not best or best < 8: return None
    return pre + q + body[:best] + q, pre + q + body[best:] + q


def split_string(lines, n, ts, width):
    "A string literal crossing `width` on row `n` split in two adjacent literals (parenthesized if outside brackets)."
    row, line = on_row(ts, n), lines[n]
    strs = [t for t in row if t.type == tokenize.STRING and t.erow == t.srow and t.scol <= width - 10]
    strs = [t for t in strs if t.ecol > width] or strs[-1:]        # the one crossing `width`, else the last before
    for i, t in enumerate(row):
        if t not in strs: continue
        if t.stack:
            parts = split_at(t.string, width - t.scol)
            if not parts: continue
            tail = ' ' * t.scol + parts[1] + line[t.ecol:]
            more = join_next(lines, n, ts, t, width) if t is row[-1] else []
            one = joined(tail, more, width, True)                 # reflows the literals that follow, to their end
            if one: return lines[:n] + [line[:t.scol] + parts[0], one] + lines[n + 2:]
            return lines[:n] + [line[:t.scol] + parts[0], tail] + lines[n + 1:]
        a = b = i                                                   # the run of adjacent literals it belongs to
        while a > 0 and row[a - 1].type == tokenize.STRING: a -= 1
        while b + 1 < len(row) and row[b + 1].type == tokenize.STRING: b += 1
        parts = split_at(t.string, width - t.scol - 1)
        if not parts: continue
        s, e = row[a].scol, row[b].ecol
        head = line[:s] + '(' + line[s:t.scol] + parts[0]
        tail = ' ' * (s + 1) + parts[1] + line[t.ecol:e] + ')' + line[e:]
        return lines[:n] + [head, tail] + lines[n + 1:]
    return None


def paren_import(lines, n, ts, width):
    "`from m import a, b` on row `n` gets parentheses (so its names can break); `import a, b` a backslash."
    row = on_row(ts, n)
    if not row or row[0].string not in ('from', 'import') or row[0].lrow != n + 1: return None
    line = lines[n]
    if row[0].string == 'from':
        imp = [t for t in row if t.string == 'import']
        if not imp or any(t.string == '(' for t in row): return None
        end = row[-1].ecol if row[-1].type != tokenize.COMMENT else row[-2].ecol
        return (lines[:n] + [line[:imp[0].ecol] + ' (' + line[imp[0].ecol:end].lstrip() + ')' + line[end:]]
                + lines[n + 1:])
    commas = [t for t in row if t.string == ',' and t.ecol + 2 <= width]
    if not commas: return None
    c = commas[-1]
    return lines[:n] + [line[:c.ecol] + ' \\', ' ' * (indent(line) + 4) + line[c.ecol:].lstrip()] + lines[n + 1:]


def split_semicolon(lines, n, ts, width):
    "`a; b` on row `n` split at its last `;` that leaves a first line within `width` (or its first `;`)."
    row = on_row(ts, n)
    semis = [t for t in row if t.string == ';' and not t.stack]
    if not semis or row[0].lrow != n + 1: return None
    fit = [t for t in semis if t.scol <= width]
    t, line = (fit or semis)[-1], lines[n]
    nxt = [u for u in row if u.scol > t.scol]
    if not nxt: return None
    return lines[:n] + [line[:t.scol].rstrip(), ' ' * indent(line) + line[nxt[0].scol:]] + lines[n + 1:]


def in_string(ts, r) -> bool: return any(t.srow < r <= t.erow for t in ts if t.type == tokenize.STRING)


def split_body(lines, n, ts, width):
    "A one-line compound statement on row `n` (`if c: body`) with its body on the next line (and its lines after)."
    row = on_row(ts, n)
    if not row or row[0].string not in COMPOUND or row[0].lrow != n + 1: return None
    colon = [i for i, t in enumerate(row) if t.string == ':' and not t.stack and not any(
        u.string == 'lambda' and not u.stack for u in row[:i])][:1]
    if not colon or colon[0] + 1 >= len(row) or row[colon[0] + 1].type == tokenize.COMMENT: return None
    c, b, line = row[colon[0]], row[colon[0] + 1], lines[n]
    shift = indent(line) + 4 - b.scol
    end = next(t.srow for t in ts if t.type == tokenize.NEWLINE and t.srow >= n + 1)  # the body's last row
    after = [l if in_string(ts, r + 1) or not l.strip() else ' ' * max(indent(l) + shift, 0) + l.lstrip()
             for r, l in enumerate(lines[n + 1:end], n + 1)]
    return lines[:n] + [line[:c.ecol], ' ' * (indent(line) + 4) + line[b.scol:]] + after + lines[end:]


ASSIGN = {'=', '+=', '-=', '*=', '/=', '//=', '%=', '|=', '&=', '^=', '**=', '<<=', '>>=', '@='}


def paren_expr(lines, n, ts, width):
    "The expression of an `if`/`elif`/`while` header, `return`, `assert` or assignment on row `n`, parenthesized."
    row = on_row(ts, n)
    if not row or row[0].lrow != n + 1: return None
    sig = row[:-1] if row[-1].type == tokenize.COMMENT else row
    if not any(t.type == tokenize.NEWLINE and t.srow == n + 1 for t in ts): return None   # it goes on below
    if row[0].string in ('if', 'elif', 'while'):
        if sig[-1].string != ':' or sig[-1].stack: return None
        expr = sig[1:-1]
    elif row[0].string == 'return': expr = sig[1:]
    elif row[0].string == 'assert': expr = list(itertools.takewhile(lambda t: t.string != ',' or t.stack, sig[1:]))
    else:
        eq = [i for i, t in enumerate(sig) if t.string in ASSIGN and not t.stack][:1]
        if not eq: return None
        expr = sig[eq[0] + 1:]
    lo = indent(lines[n]) + (width - indent(lines[n])) // 3
    if len(expr) < 2 or not any((t.string in BEFORE and ends_operand(p) or t.string == ',') and not t.stack and
                                lo <= t.scol <= width for p, t in zip(expr, expr[1:])): return None
    a, e, line = expr[0].scol, expr[-1].ecol, lines[n]
    return lines[:n] + [line[:a] + '(' + line[a:e] + ')' + line[e:]] + lines[n + 1:]


STEPS = (wrap_comment, move_comment, split_semicolon, split_body, paren_expr, break_code, split_string, paren_import)


def wrap_lines(src: str, width: int = WIDTH) -> tuple:
    "`(new source, lines still longer than width, why unchanged or None)` for the code cell `src`."
    lines = src.split('\n')
    if not any(len(l) > width for l in lines): return src, 0, None
    old = tree(lines)
    if old is None: return src, sum(len(l) > width for l in lines), 'does not parse'
    n, left, tries = 0, 0, 0
    while n < len(lines) and tries < 10_000:
        tries += 1
        if len(lines[n]) <= width or is_magic(lines[n]): n += 1; continue
        ts = tokens(lines)
        for step in STEPS:
            new = step(lines, n, ts, width)
            if new is not None and new != lines and tree(new) == old: lines = new; break
        else: left += 1; n += 1
    new = '\n'.join(lines)
    if tree(lines) != old: return src, sum(len(l) > width for l in src.split('\n')), 'proof failed'
    return new, left, None


def wrap_notebook(path: str, width: int = WIDTH, write: bool = True) -> dict:
    "Wrap the code cells of notebook `path`; counts of long lines before and after, and cells left unchanged."
    nb = json.load(open(path))
    out = dict(before=0, after=0, changed=0, unchanged=[])
    for i, c in enumerate(nb['cells']):
        if c['cell_type'] != 'code': continue
        src = ''.join(c['source'])
        out['before'] += sum(len(l) > width for l in src.split('\n'))
        new, left, why = wrap_lines(src, width)
        out['after'] += left
        if why: out['unchanged'].append(f'cell {i} ({c.get("id")}): {why}')
        if new != src:
            out['changed'] += 1
            c['source'] = ([l + '\n' for l in new.split('\n')[:-1]]
                           + ([new.split('\n')[-1]] if new.split('\n')[-1] else []))
    if write and out['changed']:
        with open(path, 'w') as f: json.dump(nb, f, indent=1, ensure_ascii=False); f.write('\n')
    return out


def wrap_file(path: str, width: int = WIDTH, write: bool = True) -> dict:
    "`wrap_notebook` for a Python file: the whole file is one cell."
    src = open(path).read()
    new, left, why = wrap_lines(src, width)
    out = dict(before=sum(len(l) > width for l in src.split('\n')), after=left, changed=int(new != src),
               unchanged=[f'the file: {why}'] if why else [])
    if write and new != src:
        with open(path, 'w') as f: f.write(new)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('notebooks', nargs='+', help='notebooks (or .py files) to wrap')
    p.add_argument('--check', action='store_true', help='print the counts, write nothing')
    p.add_argument('--width', type=int, default=WIDTH)
    a = p.parse_args(argv)
    for path in a.notebooks:
        r = (wrap_file if path.endswith('.py') else wrap_notebook)(path, a.width, write=not a.check)
        print(f"{path}: {r['before']} long lines -> {r['after']} ({r['changed']} cells rewritten"
              f"{'' if not a.check else ', not written'})")
        for u in r['unchanged']: print('  left as it was:', u)


if __name__ == '__main__': main()
