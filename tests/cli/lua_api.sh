#!/usr/bin/env bash
# lua_api.sh: the `cuda` Lua API offline: runs each tests/lua/api_*.lua as
#   WARPLAB_NO_DRIVER=1 warplab --profile h200 run FILE [extra]
# where [extra] comes from a "-- run-with: ..." line in the file (for -p, --no-check and
# script arguments) and a "-- profile: NAME|FILE" line replaces h200. Each file must
# exit 0 and end with "N passed, 0 failed".
# Usage: bash lua_api.sh <warplab-binary> <source-root>; exit 0 pass, 1 fail.
set -u
bin=$1
root=$(cd "$2" && pwd)
cd "$root" || exit 1
export WARPLAB_NO_DRIVER=1
unset WARPLAB_PROFILE NO_COLOR

shopt -s nullglob
files=(tests/lua/api_*.lua)
if [ ${#files[@]} -eq 0 ]; then
  echo "FAIL: no tests/lua/api_*.lua under $root"
  exit 1
fi

failed=0
for f in "${files[@]}"; do
  extra=()
  line=$(grep -m 1 '^-- run-with: ' "$f" | sed 's/^-- run-with: //')
  [ -n "$line" ] && read -r -a extra <<<"$line"
  profile=$(grep -m 1 '^-- profile: ' "$f" | sed 's/^-- profile: //')
  out=$("$bin" --profile "${profile:-h200}" run "$f" "${extra[@]}" 2>&1)
  rc=$?
  last=$(printf '%s\n' "$out" | tail -n 1)
  # A file that exits 0 without its closing line did not run its cases: a failure too.
  if [ $rc -eq 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed$ ]]; then
    echo "ok   $f ${profile:+--profile $profile }${extra[*]} ($last)"
  else
    echo "FAIL $f ${extra[*]} (exit $rc)"
    printf '%s\n' "$out" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done

# A script error: exit 1, "FILE:LINE: sentence" first, then a short traceback.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'local x = 1\nlocal a = cuda.array("f32", 4)\n' >"$tmp/fails.lua"
"$bin" --profile h200 run "$tmp/fails.lua" >"$tmp/out" 2>"$tmp/err"
rc=$?
want="$tmp/fails.lua:2: no CUDA device: cuda.array needs a GPU (working from profile 'h200')"
if [ $rc -eq 1 ] && [ "$(head -n 1 "$tmp/err")" = "$want" ] && grep -q '^stack traceback:' "$tmp/err"; then
  echo "ok   a script error exits 1 with file:line and a traceback"
else
  echo "FAIL a script error gave exit $rc:"
  sed 's/^/    /' "$tmp/err"
  failed=$((failed + 1))
fi

echo "lua_api: ${#files[@]} files, $failed failed"
[ $failed -eq 0 ]
