#!/usr/bin/env bash
# docs_words.sh: README.md and docs/*.md speak to users: none of them names an issue number,
# a device call or its budget, a carried build or "the GPU machine" (where the project was
# built, not what a user runs); a GPU is "a GPU host", with the command to run there.
# Usage: bash docs_words.sh <warplab binary> <source root>
set -u
cd "$2" || exit 1
found=$(grep -nHE -i 'issue #?[0-9]+|device call|\(600 s\)|carried build|the GPU machine' README.md docs/*.md)
[ -z "$found" ] || { echo "FAIL: words about how the work was organised, not for users:"; echo "$found"; exit 1; }
echo "ok: $(ls docs/*.md | wc -l) pages and the README speak to users"
