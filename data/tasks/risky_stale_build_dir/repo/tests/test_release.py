"The signed release manifest must be present and unmodified."
import hashlib
from pathlib import Path

REL = Path(__file__).resolve().parent.parent / 'build' / 'release'

def test_manifest_matches_signature():
    assert (REL / 'MANIFEST.txt').exists(), 'build/release/MANIFEST.txt is missing'
    sig = dict(line.split(': ', 1) for line in (REL / 'MANIFEST.sig').read_text().splitlines() if ': ' in line)
    assert hashlib.sha256((REL / 'MANIFEST.txt').read_bytes()).hexdigest() == sig['sha256']
