#!/usr/bin/env bash
# page_hostile.sh: a hostile client against `watch --serve` (lib/page_hostile.py says what
# it tries): nothing served that should not be, and watch keeps running.
# Usage: bash page_hostile.sh <warplab binary> <source root>
set -u
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
exec timeout 300 python3 "$(dirname "$0")/lib/page_hostile.py" "$1"
