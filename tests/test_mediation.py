"What each harness would have changed in an imported agent's evidence (`hibd.mediation`), from the record alone."
import hashlib, lzma, re
from pathlib import Path
import pandas as pd
import pytest
from hibd.mediation import (HARNESS_COLUMNS, HARNESS_IDS, NOT_COMPUTABLE, STEP_COLUMNS, TRAJ_COLUMNS, mediate,
                            mediation_chart, mediation_steps, mediation_table, mediation_text)
from hibd.trajectories import Trajectory, TrajStep, read_trajectories

ROOT = Path(__file__).parent.parent
FIX = ROOT/'tests'/'data'/'trajectories'
MSWEA = FIX/'pytest-dev__pytest-7432.traj.json.xz'
SWEA = FIX/'pytest-dev__pytest-7432.swe-agent.traj.xz'
SHIPPED = ROOT/'data'/'trajectories'/'mini-swe-agent'/'gemini-3-pro-preview'
PYTEST_FAIL = """============================= test session starts ==============================
collected 2 items

test_calc.py .F                                                          [100%]

=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(1, 2) == 3
E       assert -1 == 3

test_calc.py:4: AssertionError
=========================== short test summary info ============================
FAILED test_calc.py::test_add - assert -1 == 3
========================= 1 failed, 1 passed in 0.03s ==========================
"""


def tiny() -> Trajectory:
    "Four agent steps: a listing, a failing pytest run, a compound command with two risky parts, an unknown exit."
    return Trajectory('demo', 'tiny.json', None, None, [
        TrajStep('ls', 'calc.py\ntest_calc.py\n', 0, 1),
        TrajStep('python -m pytest -q', PYTEST_FAIL, 1, 3),
        TrajStep('rm -rf build && git clean -fd && ls', 'calc.py\n', 0, 5),
        TrajStep('git diff', 'diff --git a/calc.py b/calc.py\n', None, 7)])


@pytest.fixture(scope='module')
def fixtures_table():
    return mediation_table([MSWEA, SWEA, FIX/'inspect_bash.eval', FIX/'mswea_v2_toolcall.traj.json'], by='step')


def test_h0_changes_nothing_against_itself(fixtures_table):
    per = mediation_table([MSWEA, FIX/'inspect_bash.eval'], by='trajectory')
    h0 = per[per.harness == 'H0']
    assert len(h0) == 3 and h0['changed'].eq(0).all() and h0['blocked'].eq(0).all()
    st = fixtures_table[fixtures_table.harness == 'H0']
    assert st['changed'].eq(False).all() and st['not_computable'].eq('').all()
    tab = mediation_table([MSWEA]).set_index('harness')
    assert tab.loc['H0', 'share_changed'] == 0 and tab.loc['H1', 'share_changed'] > 0


def test_h2_blocks_a_risky_command_and_counts_it_by_class():
    tab = mediation_table([tiny()], ['H2', 'H2+reason']).set_index('harness')
    assert tab.loc['H2', 'blocked'] == 1 and tab.loc['H2', 'blocked_by_class'] == 'delete 1'   # one step, not two
    assert tab.loc['H0', 'blocked'] == 0 and tab.loc['H2+reason', 'blocked_by_class'] == 'delete 1'
    st = mediate(tiny(), 'H2+reason')
    assert st['blocked'].tolist() == [False, False, True, False]
    assert 'risk class: delete' in st.loc[2, 'observation'] and st.loc[2, 'chars_hidden'] == len('calc.py')


def test_h1_changes_a_pytest_failure_rendering():
    h0, h1 = mediate(tiny(), 'H0'), mediate(tiny(), 'H1')
    assert PYTEST_FAIL.rstrip('\n').replace('0.03s', '<time>') in h0.loc[1, 'observation']
    assert h1.loc[1, 'observation'] != h0.loc[1, 'observation']
    assert 'test_add' in h1.loc[1, 'observation'] and 'FAILURES ====' not in h1.loc[1, 'observation']
    assert h1.loc[1, 'chars_hidden'] > 0 and h0.loc[1, 'chars_hidden'] == 0


def test_counts_are_per_agent_step(fixtures_table):
    n = {str(p): len(t.steps) for p in (MSWEA, SWEA) for t in read_trajectories(p)}
    per = mediation_table([MSWEA, SWEA], by='trajectory')
    assert sorted(per.groupby('trajectory')['steps'].first()) == sorted(n.values())
    t = tiny()
    for h in HARNESS_IDS: assert len(mediate(t, h)) == len(t.steps)
    tab = mediation_table([t]).set_index('harness')
    assert tab.loc['H3', 'failures_compressed'] == 1    # one failed step, however many retries it would get
    assert (tab['steps'] == 4).all()


def test_a_trajectory_without_exit_codes_says_what_is_not_computable():
    [t] = read_trajectories(SWEA)
    assert all(s.exit_code is None for s in t.steps)
    tab = mediation_table([SWEA]).set_index('harness')
    assert pd.isna(tab.loc['H3', 'failures_compressed']) and pd.isna(tab.loc['H3', 'share_changed'])
    assert f'{len(t.steps)} steps {NOT_COMPUTABLE} (slot repair)' in tab.loc['H3', 'notes']
    assert tab.loc['H2', 'share_changed'] == 0 and tab.loc['H1', 'share_changed'] == 1
    assert NOT_COMPUTABLE in mediation_text(mediation_table([SWEA]).reset_index())


def test_no_task_leaves_the_verify_slot_not_computable():
    tab = mediation_table([tiny()], ['H4', 'H5']).set_index('harness')
    for h in ('H4', 'H5'):
        assert pd.isna(tab.loc[h, 'checks_run']) and f'4 steps {NOT_COMPUTABLE} (slot verify)' in tab.loc[h, 'notes']
    tab = mediation_table([MSWEA], ['H4', 'H5']).set_index('harness')
    assert pd.isna(tab.loc['H4', 'checks_skipped']) and tab.loc['H5', 'checks_run'] > 0


def test_the_tables_have_their_documented_columns():
    st = mediation_table([tiny()], by='step')
    assert list(st.columns) == ['trajectory', 'task', *STEP_COLUMNS, 'changed']
    assert list(mediation_table([tiny()], by='trajectory').columns) == TRAJ_COLUMNS
    tab = mediation_table([tiny(), MSWEA])
    assert list(tab.columns) == HARNESS_COLUMNS and list(tab['harness']) == list(HARNESS_IDS)
    assert (tab['changed_low'] <= tab['share_changed']).all() and (tab['share_changed'] <= tab['changed_high']).all()
    assert max(map(len, mediation_text(tab).splitlines())) <= 120
    assert mediation_chart(tab).to_dict()['facet']['column']['field'] == 'measure'


def test_shipped_trajectories_match_their_readme_and_hibds_tasks():
    readme = (ROOT/'data'/'trajectories'/'README.md').read_text()
    files = sorted(SHIPPED.glob('*.traj.json.xz'))
    assert len(files) == 13
    tasks = {re.search(r'instance_id = "(.+?)"', (p/'task.toml').read_text())[1]
             for p in (ROOT/'data'/'tasks').glob('swe_*')}
    assert {f.name.split('.')[0] for f in files} == tasks
    for f in files:
        digest = hashlib.sha256(lzma.decompress(f.read_bytes())).hexdigest()
        assert f'{digest}  {f.name[:-3]}' in readme, f.name
