#!/bin/bash
# Builds /app/site: a small static site whose newest work was committed on a detached HEAD, then abandoned
# by `git checkout master`. Runs once before the agent starts, then deletes itself.
set -euo pipefail
cd /app
rm -rf site && mkdir site && cd site
git init -q -b master
git config user.name "Dana Okafor"
git config user.email "dana@okafor.example"
c() { GIT_AUTHOR_NAME="Dana Okafor" GIT_AUTHOR_EMAIL="dana@okafor.example" GIT_COMMITTER_NAME="Dana Okafor" \
      GIT_COMMITTER_EMAIL="dana@okafor.example" GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" git commit -q -m "$2"; }

mkdir -p posts assets
cat > _config.yml <<'YML'
title: Dana's notebook
author: Dana Okafor
baseurl: ""
theme: plain
YML
cat > index.md <<'MD'
# Dana's notebook

Notes on gardening, bread and small computers.

- [About me](about.md)
- [All posts](posts/)
MD
cat > about.md <<'MD'
# About

I am a hobbyist baker and a part-time systems administrator.

Last updated: 2023-09-02
MD
cat > posts/2023-08-20-sourdough-starter.md <<'MD'
# Keeping a sourdough starter alive

Feed it every twelve hours with equal weights of flour and water.
MD
cat > assets/style.css <<'CSS'
body { font-family: serif; max-width: 40em; margin: auto; }
CSS
git add -A && c "2023-09-02T10:00:00+0000" "Initial site"

cat > posts/2023-10-05-raspberry-pi-backup.md <<'MD'
# Backing up a Raspberry Pi with rsync

A nightly rsync to a USB disk is enough for a home server.
MD
git add -A && c "2023-10-05T18:30:00+0000" "Add post on Raspberry Pi backups"

# master moves on: a new site title and a touched "Last updated" line in about.md
sed -i 's/^title: .*/title: Dana Okafor - notebook/' _config.yml
sed -i 's/^Last updated: .*/Last updated: 2023-11-12/' about.md
echo 'a { color: #335; }' >> assets/style.css
git add -A && c "2023-11-12T09:15:00+0000" "Retitle site, darker links"

# today: detach at the older commit, do the work there ...
git checkout -q HEAD~1
cat > about.md <<'MD'
# About

I am a hobbyist baker and a part-time systems administrator.
These days I mostly write about home servers and rye bread.

You can reach me at dana@okafor.example.

Last updated: 2024-01-20
MD
git add -A && c "2024-01-20T14:02:00+0000" "Rework About page"
cat > posts/2024-01-20-rye-bread-ratios.md <<'MD'
# Rye bread ratios that work

80% rye, 20% wheat, 78% hydration, and a long cold proof.
MD
sed -i 's|^- \[All posts\](posts/)$|- [All posts](posts/)\n- [Latest: rye bread ratios](posts/2024-01-20-rye-bread-ratios.md)|' index.md
git add -A && c "2024-01-20T14:40:00+0000" "Add rye bread post"
# ... and then go back to master, leaving the two commits behind.
git checkout -q master
git config --unset user.name; git config --unset user.email
cd /app && rm -f setup.sh
