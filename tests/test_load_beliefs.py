"""`hibd.analysis.load_beliefs` on the committed runs: one row per model answer (issue 36's done criterion on
data/runs/record_bench), whatever K expansion `load_run` did, with the failed answers as rows without a belief, and
ordinal labels whose codes are `hibd.schema.to_table`'s. No model is loaded: the step records are read only."""
import json
from pathlib import Path
import numpy as np, pandas as pd
import pytest
from hibd.analysis import BELIEF_COLUMNS, load_beliefs
from hibd.runs import load_run
from hibd.schema import ORDINALS, to_table

RUNS = Path(__file__).parent.parent/'data'/'runs'
# small committed runs that are finished and whose status.json counts their answers (runs still being recorded or
# extended, such as record_control* and closed_code, would make the counts move under the test)
COUNTED = ['pilot_tiny', 'record_noprev', 'record_seedstream']


def test_record_bench_one_row_per_answer():
    "record_bench: 3,640 step records (K prefixes) hold 832 answered belief calls, 2 of them failed; one row each."
    rb = RUNS/'record_bench'
    status, full, once = json.loads((rb/'status.json').read_text()), load_run(rb), load_run(rb, expand=False)
    b = load_beliefs(full)
    assert (len(full), len(once), len(b)) == (3640, 832, 832)
    assert len(b) == status['run_beliefs'] and (~b.ok).sum() == status['run_beliefs_failed'] == 2
    assert not b.duplicated(['rollout_id', 'step']).any()
    assert b.equals(load_beliefs(once)) and b.equals(load_beliefs(rb))
    assert 'K' not in b and 'belief' not in b and (b.K_rollout == once.K_rollout).all()


def test_failed_answers_have_no_belief():
    "A failed answer is a row with `ok` False, its error and raw text, and every belief column missing."
    b = load_beliefs(RUNS/'record_bench')
    f = b[~b.ok]
    assert f[list(BELIEF_COLUMNS)].isna().all(axis=None)
    assert f.error.str.contains('max_tokens').all() and f.raw_texts.map(len).gt(0).all()
    assert b[b.ok][list(BELIEF_COLUMNS)].notna().all(axis=None)


def test_labels_carry_to_table_codes():
    "The ordinal and failure-mode labels are Categoricals whose codes are the int8 positions of `to_table`."
    once = load_run(RUNS/'record_bench', expand=False)
    b = load_beliefs(once)
    ok = b[b.ok].reset_index(drop=True)
    t = to_table(once.belief[once.ok])
    for k in (*ORDINALS, 'likely_failure_mode'):
        col = ok[f'belief_state.{k}']
        assert col.dtype == 'category' and col.cat.ordered == (k in ORDINALS)
        np.testing.assert_array_equal(col.cat.codes.to_numpy(), t[k].to_numpy())
    np.testing.assert_array_equal(ok['predicted_future.success_probability'].to_numpy(), t.success_probability)
    assert ok['belief_state.known_constraints'].map(tuple).tolist() == t.known_constraints.tolist()


@pytest.mark.parametrize('name', COUNTED)
def test_committed_runs_count_answers(name):
    "A finished committed run: as many rows as status.json's `run_beliefs`, expanded or not."
    status = json.loads((RUNS/name/'status.json').read_text())
    b = load_beliefs(load_run(RUNS/name))
    assert len(b) == status['run_beliefs'] and (~b.ok).sum() == status['run_beliefs_failed']
    assert len(b) == len(load_run(RUNS/name, expand=False))
