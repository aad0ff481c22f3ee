"Tests of hibd.schema's constraint id columns: deterministic across processes, sets (duplicates once, sorted), slow path in as_table."
import os, subprocess, sys
import numpy as np, pandas as pd, pyarrow as pa, pytest
from hibd.schema import (BeliefError, ID_COLUMNS, ID_DTYPE, TABLE_COLUMNS, as_table, constraint_id, constraint_ids, example_belief,
                         normalise, random_beliefs, to_table)

def test_ids_agree_across_processes_and_hash_seeds():
    code = ("from hibd.schema import to_table, random_beliefs, ID_COLUMNS; t = to_table(random_beliefs(50, seed=3));"
            "print([t[c].tolist() for c in ID_COLUMNS])")
    outs = {subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True,
                           env={**os.environ, 'PYTHONHASHSEED': seed}).stdout for seed in ('0', '1', '12345')}
    assert len(outs) == 1
    t = to_table(random_beliefs(50, seed=3))
    assert outs.pop().strip() == str([t[c].tolist() for c in ID_COLUMNS])

def test_id_is_blake2b_of_normalised_string():
    import hashlib
    s = '  No   NETWORK\t'
    want = int.from_bytes(hashlib.blake2b(b'no network', digest_size=8).digest(), 'little', signed=True)
    assert constraint_id(s) == want == constraint_id(normalise(s))

def test_cells_are_sorted_sets_of_normalised_strings():
    cells = [('b', 'A', ' a ', 'B  '), (), ('x',), ('y', 'x', 'Y')]
    got = constraint_ids(cells).tolist()
    assert got == [sorted({constraint_id('a'), constraint_id('b')}), [], [constraint_id('x')],
                   sorted({constraint_id('x'), constraint_id('y')})]

def test_to_table_layout_and_as_table_slow_path():
    bs = random_beliefs(200, seed=4)
    t = to_table(bs)
    assert list(t.columns) == [*TABLE_COLUMNS, *ID_COLUMNS] and all(t[c].dtype == ID_DTYPE for c in ID_COLUMNS)
    bare = t[list(TABLE_COLUMNS)].copy()
    full = as_table(bare)
    assert list(bare.columns) == list(TABLE_COLUMNS)
    for c in ID_COLUMNS: assert full[c].tolist() == t[c].tolist()
    assert as_table(t) is t

def test_bad_id_columns_are_named():
    t = to_table([example_belief()])
    with pytest.raises(BeliefError, match='known_ids: expected'): as_table(t.assign(known_ids=pd.Series([[1]], dtype=object)))
    dup = pd.Series(pd.arrays.ArrowExtensionArray(pa.array([[3, 3]], pa.list_(pa.int64()))))
    with pytest.raises(BeliefError, match='satisfied_ids: ids must be sorted and unique'): as_table(t.assign(satisfied_ids=dup))
