#!/usr/bin/env bash
# watch_links.sh: a script watched through a folder that is a symbolic link (cur -> v1):
# pointing the link elsewhere (ln -sfn v2 cur, or a new link renamed over it) is a change
# (a run of the script cur/ now holds), saves in the new folder are seen, and saves in the
# old one are not (they used to be the only ones seen: after the retarget, no save of
# cur/s.lua started a run).
# Needs the synthetic profile tests/data/profiles/synthetic_profile.json (skips without it).
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
[ -f "$FIX" ] || { echo "skip: $FIX missing"; exit 77; }
export WARPLAB_NO_DRIVER=1 NO_COLOR=1
T="$(mktemp -d)"
WPID=""
cleanup() { [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat -v "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
wait_for() {  # wait_for FILE REGEX: poll for up to 10 s
  for _ in $(seq 200); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "no '$2' in $(basename "$1") after 10 s"
}

cd "$T"
mkdir v1 v2 v3
echo 'print("one")' >v1/s.lua
echo 'print("two")' >v2/s.lua
echo 'print("three")' >v3/s.lua
ln -s v1 cur
"$W" --profile "$FIX" watch cur/s.lua >"$T/out" 2>"$T/err" &
WPID=$!
wait_for "$T/out" '^one$'
wait_for "$T/err" '\] run 1 ok'

ln -sfn v2 cur                              # the link replaced: unlink, then a new one
wait_for "$T/out" '^two$'
wait_for "$T/err" '\] run 2 ok'
echo 'print("two, saved")' >v2/s.lua        # a save where the link points now
wait_for "$T/out" '^two, saved$'
wait_for "$T/err" '\] run 3 ok'
echo 'print("one, saved")' >v1/s.lua        # where it pointed before: nothing to run
sleep 1.5
grep -q 'one, saved' "$T/out" && fail "a save in the folder the link left started a run"

ln -s v3 cur.new && mv -T cur.new cur       # a new link renamed over the old one
wait_for "$T/out" '^three$'
echo 'print("three, saved")' >cur/s.lua
wait_for "$T/out" '^three, saved$'
kill -INT "$WPID"
wait "$WPID"
WPID=""
echo ok
