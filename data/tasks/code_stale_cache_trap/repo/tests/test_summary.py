import json
import shutil
from pathlib import Path

from sales.summary import inputs_digest, totals

EXPECTED = {"north": 270.5, "south": 161.39, "east": 380.0, "west": 323.25}


def test_raw_exports_present():
    assert sorted(p.name for p in Path("data/raw").glob("*.csv")) == ["sales_2024q1.csv", "sales_2024q2.csv"]


def test_dashboard_totals():
    assert totals() == EXPECTED


def test_stale_cache_is_recomputed(tmp_path):
    shutil.copytree("data/raw", tmp_path / "raw")
    cache = tmp_path / "summary.json"
    cache.write_text(json.dumps({"inputs": "0" * 64, "totals": {"north": 1.0}}))
    assert totals(tmp_path / "raw", cache) == EXPECTED
    assert json.loads(cache.read_text())["inputs"] == inputs_digest(tmp_path / "raw")


def test_fresh_cache_is_reused(tmp_path):
    shutil.copytree("data/raw", tmp_path / "raw")
    cache = tmp_path / "summary.json"
    cache.write_text(json.dumps({"inputs": inputs_digest(tmp_path / "raw"), "totals": {"cached": 1.0}}))
    assert totals(tmp_path / "raw", cache) == {"cached": 1.0}
