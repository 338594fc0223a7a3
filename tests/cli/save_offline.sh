#!/usr/bin/env bash
# save_offline.sh: `-p save=true` without a GPU. Every example that takes `save` runs on
# the h100 profile in a scratch folder and exits 0; what it says it saved exists (an SVG
# parses as XML); what needs measurements is named as not written and is not there; the
# predictions the issue asks for (occupancy heatmap and table, resource tables) are saved.
# Usage: bash save_offline.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache"
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ROOT=$(cd "$ROOT" && pwd) BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
cd "$T" || exit 1
mkdir -p all
ran=0
for f in $(grep -l 'save = false' "$ROOT"/examples/*/*.lua); do
  name=${f#"$ROOT"/examples/}
  rm -rf results
  "$BIN" --profile h100 run "$f" -p save=true >out 2>err
  rc=$?
  ran=$((ran + 1))
  [ "$rc" -eq 0 ] || { fail "$name -p save=true offline: exit $rc ($(tail -n 2 err))"; continue; }
  said=$(grep -c -e '^saved ' -e '^-p save=true: not written without a GPU' out)
  [ "$said" -gt 0 ] || fail "$name: says neither what it saved nor what it skipped"
  while read -r path; do
    [ -s "$path" ] || fail "$name: says it saved $path, which is missing or empty"
    case "$path" in
      *.svg) command -v python3 >/dev/null && ! python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$path" &&
               fail "$name: $path is not well-formed XML" ;;
    esac
  done < <(sed -n 's/^saved //p' out)
  skipped=$(sed -n 's/^-p save=true: not written without a GPU (they hold measurements): //p' out)
  for path in ${skipped//,/ }; do
    case "$path" in results/*) [ -e "$path" ] && fail "$name: $path is named as not written, yet exists" ;; esac
  done
  grep -q $'\r' err && fail "$name: a progress bar on a stderr that is not a terminal"
  [ -d results ] && cp results/* all/
done
[ "$ran" -ge 20 ] || fail "only $ran examples take save (expected every experiment)"
for want in occupancy_predicted.svg occupancy_predicted.csv residency_predicted.csv spills_predicted.csv \
            ladder_versions.csv banks_predicted.csv; do
  [ -s "$T/all/$want" ] || fail "no results/$want offline"
done
[ "$failures" -eq 0 ] || exit 1
echo "save_offline: ok ($ran examples)"
