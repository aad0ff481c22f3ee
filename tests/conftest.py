"Shared test builders."
import textwrap
from pathlib import Path
from hibd.tasks import Task, load_task

def mini_mean_task(root: Path, extra: dict) -> Task:
    "A small code task (mean divides by n-1) built under `root`, plus `extra` files {path in repo: text}."
    (root/'repo'/'src').mkdir(parents=True); (root/'repo'/'tests').mkdir(); (root/'repo'/'data').mkdir()
    (root/'repo'/'src'/'stats.py').write_text('def mean(xs):\n    return sum(xs) / (len(xs) - 1)\n')
    (root/'repo'/'tests'/'test_stats.py').write_text(
        "import sys; sys.path.insert(0, 'src')\nfrom stats import mean\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n")
    (root/'repo'/'data'/'scores.csv').write_text('a,1\nb,2\n')
    for p, text in extra.items(): (root/'repo'/p).write_text(text)
    (root/'task.toml').write_text(textwrap.dedent('''\
        id = "mini_mean"
        group = "code"
        title = "mean divides by n-1"
        instruction = "Fix mean in src/stats.py so python -m pytest -q passes."
        target_state = "tests pass"
        expected_failure_modes = ["wrong_file_patch"]
        setup = ["git init -q && git add -A && git commit -qm init"]
        [[verifiers]]
        name = "compile"
        command = "python -m py_compile src/stats.py"
        strength = "cheap"
        cost = 1
        [[verifiers]]
        name = "tests"
        command = "python -m pytest -q"
        strength = "full"
        cost = 5
        [trajectory]
        commands = ["ls -R", "python -m pytest -q", "cat src/stats.py", "sed -i 's/len(xs) - 1/len(xs)/' src/stats.py",
                    "python -m pytest -q", "git status --short"]
        [expect]
        full_before = "fail"
        full_after = "pass"
        '''))
    return load_task(root)


import sys
import pytest
from hibd.registry import Registry


def _registries() -> list[Registry]:
    "Every `Registry` a loaded `hibd` module holds at its top level (harnesses, wrappers, report sections, ...)."
    mods = [m for n, m in list(sys.modules.items()) if n == 'hibd' or n.startswith('hibd.')]
    return list({id(r): r for m in mods for r in vars(m).values() if isinstance(r, Registry)}.values())


@pytest.fixture(autouse=True)
def _registries_restored():
    "What a test registers (a notebook's H6, a user file's harness) is gone after it: tests share one process."
    before = [(r, dict(r)) for r in _registries()]
    yield
    for r, items in before:
        if dict(r) != items or list(r) != list(items): dict.clear(r); dict.update(r, items)
