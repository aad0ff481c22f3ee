"""The hand-written shell lexer of `hibd.shell` against tree-sitter-bash, on the gate's labelled table.

Both readers produce the same `Cmd` values (argv, redirections, stdin, pipeline), and both go through the same
wrapper unwrapping and the same risk rules of `hibd.gate`, so the only thing that differs is how the command
line is read. The table is the 167 labelled commands of `tests/test_harness.py` (`GATE_TABLE`).

    pip install tree-sitter tree-sitter-bash    # MIT; not a dependency of hibd
    python benchmarks/shell_parsers.py

Prints, side by side: commands classified right, commands read differently, and the time per command of
reading alone (and of tree-sitter's C parse within it) and of the whole gate decision, with the ratio tree-sitter / hand.
"""
import re, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent.parent/'tests'))
import hibd.gate, hibd.shell
from hibd.shell import Cmd, _nested, _strip_wrappers
from test_harness import GATE_TABLE

from tree_sitter import Language, Parser
import tree_sitter_bash

PARSER = Parser(Language(tree_sitter_bash.language()))
HAND = hibd.shell.shell_commands

def _unquote(n) -> str:
    "The word `n` as bash passes it to the program (quotes removed, expansions left as written)."
    t, s = n.type, n.text.decode()
    if t == 'raw_string': return s[1:-1]
    if t == 'ansi_c_string': return s[2:-1]
    if t == 'string': return re.sub(r'\\([\\"$`])', r'\1', s[1:-1])
    if t == 'concatenation': return ''.join(_unquote(c) for c in n.children)
    if t == 'word': return re.sub(r'\\(.)', r'\1', s.replace('\\\n', ''))
    return s   # expansions, substitutions, numbers: as written

def _subs(n, out):
    "Texts of the command substitutions inside `n`, in order."
    if n.type in ('command_substitution', 'process_substitution'):
        s = n.text.decode()
        out.append(s[2:-1] if s.startswith(('$(', '<(', '>(')) else s[1:-1]); return
    for c in n.children: _subs(c, out)

def _redirect(n, cmd, subs):
    "Add the redirection node `n` to `cmd` (a file target, a heredoc body or a here-string)."
    if n.type == 'heredoc_redirect':
        body = [c for c in n.children if c.type == 'heredoc_body']
        cmd.stdin.append(body[0].text.decode().rstrip('\n') if body else ''); return
    if n.type == 'herestring_redirect':
        cmd.stdin.append(_unquote(n.children[-1])); _subs(n, subs); return
    fd = ''.join(c.text.decode() for c in n.children if c.type == 'file_descriptor')
    op = next((c.text.decode() for c in n.children if not c.is_named), '')
    dest = [c for c in n.children if c.is_named and c.type != 'file_descriptor']
    cmd.redirs.append((fd + op, _unquote(dest[-1]) if dest else '')); _subs(n, subs)

def _walk(n, cmds, subs, pipe):
    "Collect the simple commands under `n` into `cmds`; `pipe` is a one-item list holding the next pipeline number."
    t = n.type
    if t == 'command':
        c = Cmd(pipe=pipe[0]); pipe[0] += 1
        for ch in n.children:
            if ch.type == 'variable_assignment': _subs(ch, subs); continue
            if ch.type == 'command_name': c.argv.append(_unquote(ch.children[0]) if ch.children else ch.text.decode()); _subs(ch, subs)
            elif ch.type.endswith('redirect'): _redirect(ch, c, subs)
            elif ch.is_named: c.argv.append(_unquote(ch)); _subs(ch, subs)
        cmds.append(c); return
    if t == 'pipeline':
        start = len(cmds)
        for ch in n.children: _walk(ch, cmds, subs, pipe)
        for c in cmds[start:]: c.pipe = cmds[start].pipe if start < len(cmds) else c.pipe
        return
    if t == 'redirected_statement':
        start = len(cmds)
        body = n.child_by_field_name('body')
        if body is not None: _walk(body, cmds, subs, pipe)
        if len(cmds) == start: cmds.append(Cmd(pipe=pipe[0])); pipe[0] += 1
        for ch in n.children:
            if ch.type.endswith('redirect'): _redirect(ch, cmds[-1], subs)
        return
    if t in ('command_substitution', 'process_substitution', 'comment'): return
    for ch in n.children: _walk(ch, cmds, subs, pipe)

def ts_shell_commands(action: str, depth: int = 0) -> list:
    "`hibd.shell.shell_commands`, with tree-sitter-bash reading the command line."
    cmds, subs = [], []
    _walk(PARSER.parse(action.encode()).root_node, cmds, subs, [0])
    out = [x for c in cmds for x in _strip_wrappers(c, depth)]
    if depth < 3:
        for k, text in enumerate(subs): out += _nested(ts_shell_commands(text, depth + 1), ('$()', k + 1))
    return out

def use(reader):
    "Make the gate (and the unwrapping of `bash -c`) read commands with `reader`."
    hibd.shell.shell_commands = hibd.gate.shell_commands = reader

def per_command(fn, rounds: int = 7) -> float:
    "Microseconds per table command of `fn(action)`: the best of `rounds` passes over the table (the machine is shared)."
    best = float('inf')
    for _ in range(rounds):
        t0 = time.perf_counter()
        for a, _w in GATE_TABLE: fn(a)
        best = min(best, time.perf_counter() - t0)
    return best / len(GATE_TABLE) * 1e6

def evaluate(reader) -> dict:
    "How `reader` does on the table: how many right, which wrong, its time per command, what it reads."
    use(reader)
    try:
        wrong = [(a, want, hibd.gate.gate_check(a).risk_class) for a, want in GATE_TABLE if hibd.gate.gate_check(a).risk_class != want]
        read, gate = per_command(reader), per_command(hibd.gate.gate_check)
        argv = {a: [c.argv for c in reader(a)] for a, _w in GATE_TABLE}
    finally: use(HAND)
    return {'right': len(GATE_TABLE) - len(wrong), 'wrong': wrong, 'read_us': read, 'gate_us': gate, 'argv': argv}

if __name__ == '__main__':
    hand, ts = evaluate(HAND), evaluate(ts_shell_commands)
    n = len(GATE_TABLE)
    print(f'{"":32}{"hand lexer":>14}{"tree-sitter":>14}{"ratio ts/hand":>16}')
    print(f'{"right (of %d)" % n:32}{hand["right"]:>14}{ts["right"]:>14}')
    print(f'{"reading, µs per command":32}{hand["read_us"]:>14.1f}{ts["read_us"]:>14.1f}{ts["read_us"] / hand["read_us"]:>16.2f}')
    print(f'{"gate decision, µs per command":32}{hand["gate_us"]:>14.1f}{ts["gate_us"]:>14.1f}{ts["gate_us"] / hand["gate_us"]:>16.2f}')
    parse = per_command(lambda a: PARSER.parse(a.encode()))
    print(f'{"  of which the C parse alone":32}{"":>14}{parse:>14.1f}{parse / hand["read_us"]:>16.2f}')
    differ = [a for a in hand['argv'] if hand['argv'][a] != ts['argv'][a]]
    print(f'{"commands read differently":32}{len(differ):>14}')
    for name, r in (('hand lexer', hand), ('tree-sitter', ts)):
        for a, want, got in r['wrong']: print(f'{name} wrong: {a!r}: want {want}, got {got}')
    for a in differ: print(f'read differently: {a!r}\n  hand: {hand["argv"][a]}\n  ts:   {ts["argv"][a]}')
