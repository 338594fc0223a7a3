#!/usr/bin/env bash
# examples_architectures.sh: every example on a bare architecture profile (--profile sm_86:
# NVIDIA's limits, no SM count, memory or L2 size) either prints its predictions (exit 0)
# or, where its plan needs what the profile does not know, ends with one sentence naming a
# profile that knows it, no traceback, exit 3 (docs/exit-codes.md); on a product (a100:
# the same limits and an SM count) only what needs a captured device still ends so; every
# newer product and architecture likewise.
# Usage: bash examples_architectures.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
# The compile cache is the one the examples' own tests use (the default, or the
# environment's WARPLAB_CACHE_DIR), not a fresh one: compiling every example for every
# profile is the suite's largest cost (the CCCL kernels take seconds each), and a cache hit
# is the same result (the key hashes the source, every header, the options and NVRTC).
export NO_COLOR=1
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN") ROOT=$(cd "$ROOT" && pwd)
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cd "$T" || exit 1

# The examples whose plan needs the SM count (grids of one or two waves, co-resident
# capacity) or the L2 size (coalescing's default size) on sm_86; every other one works.
needs_sms="scheduling/waves sync/cost sync/dsmem sync/missing_barrier sync/mutex sync/syncblocks
           warps/clocks reductions/ladder reductions/single_pass sync/ladder sync/pipeline sync/atomics
           sync/litmus memory/async_copy"
SENTENCE="is unknown for profile sm_86 (architecture limits, not a captured device): pass a product (--profile a100) or a captured profile"
n=0
while IFS= read -r f; do
  n=$((n + 1))
  name=${f#"$ROOT/examples/"}
  name=${name%.lua}
  "$BIN" --profile sm_86 run "$f" -q >"$T/out" 2>"$T/err" </dev/null
  rc=$?
  case " $(echo $needs_sms) memory/coalescing " in
    *" $name "*)
      [ $rc -eq 3 ] || fail "$name on sm_86: exit $rc, want 3: $(tail -3 "$T/err")"
      [ "$(wc -l <"$T/err")" -eq 1 ] || fail "$name on sm_86: not one line on stderr: $(head -5 "$T/err")"
      grep -qE "^warplab: [^ ]+\.lua:[0-9]+: (attribute '[a-z0-9_]+'|the SM count \(attribute 'multiprocessor_count'\)) $(printf '%s' "$SENTENCE" | sed 's/[().]/\\&/g')\$" "$T/err" ||
        fail "$name on sm_86: not the sentence: $(cat "$T/err")"
      ;;
    *)
      [ $rc -eq 0 ] || fail "$name on sm_86: exit $rc: $(tail -3 "$T/err")"
      grep -q "is unknown for" "$T/err" && fail "$name on sm_86: $(cat "$T/err")"
      ;;
  esac
  grep -q "stack traceback" "$T/err" && fail "$name on sm_86: a traceback"
done < <(find "$ROOT/examples" -name '*.lua' | sort)
[ "$n" -ge 20 ] || fail "only $n examples"

# What the examples use of it, on the profile: the tour's table says "unknown", pinned
# sizes its copies without the memory size, coalescing works once the size is given.
"$BIN" --profile sm_86 run "$ROOT/examples/tour.lua" -q >"$T/out" 2>&1 || fail "tour on sm_86: exit $?"
grep -qE '^multiprocessor_count +unknown$' "$T/out" || fail "tour on sm_86: the SM count is not 'unknown'"
"$BIN" --profile sm_86 run memory/coalescing.lua -q -p reads=16777216 >"$T/out" 2>&1 ||
  fail "coalescing -p reads on sm_86: exit $?: $(tail -3 "$T/out")"
# A product knows the SM count: every grid-wide example plans; only the L2 size is missing.
for name in $needs_sms; do
  "$BIN" --profile a100 run "$name.lua" -q >"$T/out" 2>&1 || fail "$name on a100: exit $?: $(tail -3 "$T/out")"
done
"$BIN" --profile a100 run memory/coalescing.lua -q >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 3 ] && grep -qxE "warplab: .*/memory/coalescing\.lua:[0-9]+: attribute 'l2_cache_size' is unknown for profile a100 \(architecture limits, not a captured device\): pass a captured profile \(warplab attrs --json > gpu\.json on that GPU\)" "$T/err" ||
  fail "coalescing on a100: exit $rc: $(cat "$T/err")"
# The newer products and architectures: each example plans (exit 0), or ends
# with the one sentence (exit 3); never a failed compile-side check (exit 1: the PTX of
# sm_100/sm_120 puts constants where sm_90's has registers) or a traceback.
for prof in b200 rtx5090 sm_100 sm_120; do
  while IFS= read -r f; do
    "$BIN" --profile "$prof" run "$f" -q >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    case $rc in
      0) ;;
      3) grep -q "is unknown for profile $prof" "$T/err" || fail "${f#"$ROOT/"} on $prof: exit 3 without the sentence" ;;
      *) fail "${f#"$ROOT/"} on $prof: exit $rc: $(grep -m2 -E 'FAIL|error' "$T/out" "$T/err")" ;;
    esac
    grep -q "stack traceback" "$T/err" && fail "${f#"$ROOT/"} on $prof: a traceback"
  done < <(find "$ROOT/examples" -name '*.lua' | sort)
done
exit $((failures > 0))
