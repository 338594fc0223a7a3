#!/usr/bin/env bash
# offline_pictures.sh: without a GPU, `-p save=true` writes every picture that holds a
# prediction (occupancy, residency and its spills, spills, banks, coalescing, the lanes of
# ids.lua) and still names the measured ones it cannot write; the occupancy heatmap hatches
# the block sizes a variant cannot launch, with a key, an x label and round ticks, and the
# table and CSV say "cannot launch" where they said 0; residency.lua's "no GPU here" comes
# after its tables; syncblocks.lua shows the refusal sentence as its check's evidence.
# Usage: bash offline_pictures.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
export NO_COLOR=1 WARPLAB_CACHE_DIR="$T/cache" XDG_STATE_HOME="$T/state"
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cd "$T" || exit 1
ex() { "$BIN" -q run "$ROOT/examples/$1.lua" -p save=true >"$T/$2.out" 2>&1 || fail "$1: exit $?"; }

ex scheduling/occupancy occ
ex scheduling/residency res
ex warps/ids ids
ex memory/spills spills
ex memory/banks banks
ex memory/coalescing coal
ex sync/syncblocks sync
for f in occupancy_predicted residency_predicted residency_spills_predicted ids_predicted spills_predicted \
  banks_predicted coalescing_predicted; do
  [ -s "results/$f.svg" ] || fail "results/$f.svg not written offline"
  head -c 5 "results/$f.svg" | grep -q "<svg" || fail "results/$f.svg is not an SVG"
done
grep -q "not written without a GPU (they hold measurements): results/occupancy_sweep.svg" occ.out ||
  fail "occupancy: the measured picture is still named as not written"

# The occupancy prediction: the 127-register variant cannot launch blocks above 512 threads.
svg=results/occupancy_predicted.svg
grep -q 'fill="url(#wl-excluded)"><title>\[112 live, 127 regs\]\[1024\] cannot launch</title>' $svg ||
  fail "occupancy heatmap: block 1024 of the 127-register variant hatched as cannot launch"
grep -q '>cannot launch</text>' $svg || fail "occupancy heatmap: the key"
grep -q '>threads per block</text>' $svg || fail "occupancy heatmap: the x label"
for tick in 128 256 512 1024; do grep -q "text-anchor=\"middle\">$tick</text>" $svg || fail "tick $tick"; done
for tick in 192 352; do ! grep -q "text-anchor=\"middle\">$tick</text>" $svg || fail "no tick at $tick"; done
grep -q '^1024,1,0.5,0.5,cannot launch$' results/occupancy_predicted.csv || fail "occupancy CSV: cannot launch, not 0"
grep -qE '^ 1024 .*cannot launch *$' occ.out || fail "occupancy table: cannot launch, not 0 %"
grep -q '// = cannot launch' occ.out || fail "occupancy terminal heatmap: the legend"

# residency: the note after both tables.
note=$(grep -n "^no GPU here" res.out | cut -d: -f1)
spills=$(grep -n "^120 live floats under a register cap" res.out | cut -d: -f1)
[ -n "$note" ] && [ -n "$spills" ] && [ "$note" -gt "$spills" ] || fail "residency: 'no GPU here' before the spill table"

# ids: a row per warp, idle lanes hatched ("66x1 warp 2" has 2 active lanes).
[ "$(grep -c '<title>\[66x1 warp 2\]\[[0-9]*\] idle lane</title>' results/ids_predicted.svg)" -eq 30 ] ||
  fail "ids: 30 idle lanes in the last warp of 66 threads"

# syncblocks: the refusal sentence is the evidence.
grep -qE 'ok   with the sentence  \(got "cooperative grid of [0-9]+ blocks exceeds the [0-9]+ co-resident blocks' sync.out ||
  fail "syncblocks: the sentence as evidence"
! grep -q "all equal" sync.out || fail "syncblocks: no '(a table of 2 entries, all equal)'"
exit $((failures > 0))
