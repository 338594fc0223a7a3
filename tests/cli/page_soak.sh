#!/usr/bin/env bash
# page_soak.sh: a page left open across 1,000 saves of `watch --serve` holds a bounded
# amount (lib/page_soak.py says how it is measured).
# Usage: bash page_soak.sh <warplab binary> <source root>
set -u
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
exec timeout 400 python3 "$(dirname "$0")/lib/page_soak.py" "$1" 1000
