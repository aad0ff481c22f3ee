"Per-region totals of the raw sales exports, cached in build/summary.json."
import csv
import hashlib
import json
from pathlib import Path

DATA = Path("data/raw")
CACHE = Path("build/summary.json")


def inputs_digest(data_dir=DATA):
    "sha256 over the names and contents of the CSV exports in `data_dir`."
    h = hashlib.sha256()
    for p in sorted(Path(data_dir).glob("*.csv")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def compute_totals(data_dir=DATA):
    "Sum of `amount` per `region` over all exports, rounded to cents."
    totals = {}
    for p in sorted(Path(data_dir).glob("*.csv")):
        with open(p, newline="") as f:
            for row in csv.DictReader(f):
                totals[row["region"]] = round(totals.get(row["region"], 0.0) + float(row["amount"]), 2)
    return totals


def totals(data_dir=DATA, cache=CACHE):
    "Per-region totals; reuses `cache` while the exports are unchanged, else recomputes and rewrites it."
    cache = Path(cache)
    if cache.exists():
        return json.loads(cache.read_text())["totals"]
    result = compute_totals(data_dir)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"inputs": inputs_digest(data_dir), "totals": result}, indent=2, sort_keys=True) + "\n")
    return result
