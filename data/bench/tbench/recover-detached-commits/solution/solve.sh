#!/bin/bash
# Reference solution for recover-detached-commits. Blocks are separated by lines that are exactly "# ---".
# Look around first: is the work in a stash or another branch? (It is not.)
cd /app/site
git status
git branch -a
git stash list
git log --oneline --graph --all
# ---
# The work was committed on a detached HEAD: the HEAD reflog still remembers it.
cd /app/site
git reflog | head -n 12
# ---
# Keep the newest commit made before the "checkout ... to master" under a branch name so it cannot be lost again.
cd /app/site
lost=$(git reflog --format='%H %gs' | grep -m1 ' commit: ' | cut -d' ' -f1)
git branch recovered-work "$lost"
git log --oneline master..recovered-work
# ---
# Merge it. This stops with a conflict in about.md (master also touched its "Last updated" line).
cd /app/site
git merge --no-edit recovered-work || true
git status --short
# ---
# Keep the lost version of the conflicting file, then finish the merge.
cd /app/site
git checkout --theirs about.md
git add about.md
git commit --no-edit -q
git branch -d recovered-work
# ---
cd /app/site
git status
git log --oneline --graph -n 8
cat about.md
