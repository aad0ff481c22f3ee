"Run every notebook in nbs/ (tutorials included) through nbdev's runner: the notebooks are the source and their cells are tests."
from pathlib import Path
import pytest
from nbdev.test import test_nb as _run_nb  # aliased so pytest does not collect nbdev's function itself

NBS_DIR = Path(__file__).parent.parent/'nbs'
NBS = sorted(p for p in NBS_DIR.rglob('*.ipynb') if not p.name.startswith('_') and '.ipynb_checkpoints' not in p.parts)

@pytest.mark.parametrize('nb', NBS, ids=[str(p.relative_to(NBS_DIR)) for p in NBS])
def test_notebook(nb):
    ok, secs = _run_nb(nb, skip_flags=['notest'])
    assert ok, f'{nb.name} failed (the failing cell and its traceback are in the captured stderr above)'
