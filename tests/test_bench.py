"""The shipped benchmark tasks (chapter 01a): Terminal-Bench-style tasks are exactly what the adapter writes from their sources in
data/bench/tbench; SWE-bench instances agree with their records (data/bench/swebench_verified_offline.jsonl), stay small, and
the committed check of all of them (data/bench/swebench_check.json) shows every FAIL_TO_PASS flipping."""
import filecmp, json
from pathlib import Path
import pytest
from hibd.tasks import load_tasks, TASKS_DIR, REPO_ARCHIVE
from hibd.bench import tbench_task, swebench_id, BENCH_DIR

SWE = {t.id: t for t in load_tasks(groups=['swebench'])}
RECORDS = [json.loads(l) for l in (BENCH_DIR/'swebench_verified_offline.jsonl').read_text().splitlines() if l.strip()]
CHECK = json.loads((BENCH_DIR/'swebench_check.json').read_text())

def same_tree(a: Path, b: Path) -> list:
    "Paths that differ between folders `a` and `b` (missing on one side, or different bytes)."
    fa = {p.relative_to(a).as_posix() for p in a.rglob('*') if p.is_file()}
    fb = {p.relative_to(b).as_posix() for p in b.rglob('*') if p.is_file()}
    return sorted((fa ^ fb) | {f for f in fa & fb if not filecmp.cmp(a/f, b/f, shallow=False)})

@pytest.mark.parametrize('src', sorted((BENCH_DIR/'tbench').iterdir()), ids=lambda p: p.name)
def test_tbench_tasks_are_what_the_adapter_writes(src, tmp_path):
    t = tbench_task(src, tmp_path)
    assert same_tree(t.path, TASKS_DIR/t.id) == [], f'data/tasks/{t.id} is stale: run `hibd tasks import-tbench {src}`'

def test_swebench_records_match_tasks():
    assert sorted(swebench_id(r['instance_id']) for r in RECORDS) == sorted(SWE)
    for r in RECORDS:
        t = SWE[swebench_id(r['instance_id'])]
        assert (t.source['instance_id'], t.source['base_commit']) == (r['instance_id'], r['base_commit'])
        assert t.source['FAIL_TO_PASS'] == r['FAIL_TO_PASS'] and t.source['PASS_TO_PASS'] == r['PASS_TO_PASS']
        assert r['patch'].rstrip('\n') in t.trajectory[4]             # the gold patch is applied by the trajectory
        assert all(i in t.verifier('targeted').command for i in r['FAIL_TO_PASS'])
        assert t.env.packages == tuple(r['hibd_env']['packages'])
        assert r['patch'] not in t.instruction and 'not available' in t.instruction   # no fix, and says what is missing

def test_swebench_snapshots_stay_small():
    sizes = {tid: (t.path/REPO_ARCHIVE).stat().st_size for tid, t in SWE.items()}
    assert max(sizes.values()) <= 4.5e6, sizes
    assert sum(sizes.values()) <= 40e6, sum(sizes.values())
    assert not any((t.path/'repo').exists() for t in SWE.values())    # compressed, never loose files

def test_committed_check_shows_every_flip():
    "`hibd tasks check --group swebench --json`, run once and committed: every instance passes and FAIL_TO_PASS flips."
    by = {r['task']: r for r in CHECK}
    assert sorted(by) == sorted(SWE)
    for tid, r in by.items():
        n = len(SWE[tid].source['FAIL_TO_PASS'])
        assert r['ok'] and r['problems'] == [], (tid, r['problems'])
        before, after = r['fail_to_pass']['before'], r['fail_to_pass']['after']
        assert before.get('failed', 0) + before.get('error', 0) >= 1 and after.get('passed') == n and not after.get('failed'), (tid, r['fail_to_pass'])
