#!/usr/bin/env bash
# docs_commands.sh: every command line and Lua example of README.md and docs/*.md runs
# offline with the exit status the docs give it (tests/cli/lib/doc_commands.py says what
# is extracted; docs/ARCHITECTURE.md, "Docs that run", how a page marks a command).
# Usage: bash docs_commands.sh <warplab binary> <source root>
set -u
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
exec python3 "$(dirname "$0")/lib/doc_commands.py" offline "$1" "$2"
