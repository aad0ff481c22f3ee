"""Tests for the Terminal-Bench-style task recover-detached-commits (end state of /app/site)."""
import subprocess
from pathlib import Path

SITE = Path('/app/site')

ABOUT = """# About

I am a hobbyist baker and a part-time systems administrator.
These days I mostly write about home servers and rye bread.

You can reach me at dana@okafor.example.

Last updated: 2024-01-20
"""

def git(*args):
    r = subprocess.run(['git', '-C', str(SITE), *args], capture_output=True, text=True)
    assert r.returncode == 0, f'git {" ".join(args)} failed: {r.stderr}'
    return r.stdout

def commit_with_subject(subject):
    "The original lost commit (not a cherry-picked or rebased copy): its subject and its original committer date."
    out = git('log', '--all', '--reflog', '--format=%H %cI %s')
    for line in out.splitlines():
        h, date, s = line.split(' ', 2)
        if s == subject and date.startswith('2024-01-20T14:'):
            return h
    raise AssertionError(f'no commit with subject {subject!r}')

def test_master_checked_out_clean_with_new_post():
    assert git('symbolic-ref', '--short', 'HEAD').strip() == 'master'
    assert git('status', '--porcelain').strip() == ''
    assert not (SITE / '.git' / 'MERGE_HEAD').exists()
    assert (SITE / 'posts' / '2024-01-20-rye-bread-ratios.md').is_file()

def test_lost_commits_are_in_master_history():
    for subject in ('Rework About page', 'Add rye bread post'):
        h = commit_with_subject(subject)
        r = subprocess.run(['git', '-C', str(SITE), 'merge-base', '--is-ancestor', h, 'master'])
        assert r.returncode == 0, f'lost commit {subject!r} ({h[:10]}) is not an ancestor of master'

def test_master_history_kept_and_extended():
    subjects = git('log', '--format=%s', 'master').splitlines()
    for s in ('Initial site', 'Add post on Raspberry Pi backups', 'Retitle site, darker links',
              'Rework About page', 'Add rye bread post'):
        assert s in subjects, s

def test_lost_files_and_master_changes_both_on_master():
    assert '78% hydration' in git('show', 'master:posts/2024-01-20-rye-bread-ratios.md')
    index = git('show', 'master:index.md')
    assert '[Latest: rye bread ratios](posts/2024-01-20-rye-bread-ratios.md)' in index
    assert '- [About me](about.md)' in index
    assert 'title: Dana Okafor - notebook' in git('show', 'master:_config.yml')
    assert 'a { color: #335; }' in git('show', 'master:assets/style.css')
    assert 'Raspberry Pi' in git('show', 'master:posts/2023-10-05-raspberry-pi-backup.md')

def test_conflict_resolved_with_lost_version():
    assert git('show', 'master:about.md') == ABOUT
    assert (SITE / 'about.md').read_text() == ABOUT
    for p in SITE.rglob('*'):
        if '.git' in p.parts or not p.is_file():
            continue
        text = p.read_text(errors='replace')
        assert '<<<<<<<' not in text and '>>>>>>>' not in text, p
