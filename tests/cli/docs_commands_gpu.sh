#!/usr/bin/env bash
# docs_commands_gpu.sh: the documented commands marked `<!-- check: gpu -->` and every Lua
# example of README.md and docs/*.md, on the GPU, with their documented exit status
# (tests/cli/lib/doc_commands.py). Skips (77) without a GPU.
# Usage: bash docs_commands_gpu.sh <warplab binary> <source root>
set -u
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
unset WARPLAB_NO_DRIVER WARPLAB_PROFILE
echo 'io.write(tostring(cuda.device().live))' >"$T/probe.lua"
[ "$("$1" run "$T/probe.lua" 2>/dev/null)" = true ] || { echo "skipped: no GPU"; exit 77; }
exec python3 "$(dirname "$0")/lib/doc_commands.py" gpu "$1" "$2"
