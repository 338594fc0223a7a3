#!/usr/bin/env bash
# list.sh: `warplab list`: every examples/**/*.lua appears under its folder heading with
# the summary from its header line "-- name.lua: summary", from any working directory;
# a folder given on the command line (a file without a header is flagged, subfolders
# grouped, an unreadable script said); a missing folder is exit 4 with one sentence. No
# GPU needed.
# Usage: bash list.sh <warplab binary> <source root>
set -u
WL="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
ROOT="$(cd "$2" && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export WARPLAB_NO_DRIVER=1 NO_COLOR=1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# The shipped examples, listed from an unrelated working directory.
(cd "$TMP" && "$WL" list >"$TMP/out" 2>"$TMP/err") || fail "list: exit $? ($(cat "$TMP/err"))"
n=0
while IFS= read -r f; do
  n=$((n + 1))
  name=$(basename "$f")
  dir=$(dirname "${f#"$ROOT/examples/"}")
  summary=$(sed -n "s/^-- $name: //p" "$f" | head -n 1)
  [ -n "$summary" ] || fail "$f has no '-- $name: summary' header line"
  # The first header line starts the summary (a wrapped summary continues after it).
  grep -qE "^  $name +$(printf '%s' "$summary" | sed 's/[][\.*^$/+?(){}|]/\\&/g')( |\$)" "$TMP/out" ||
    fail "list: no line '  $name  $summary'"
  if [ "$dir" = "." ]; then heading="./"; else heading="$dir/"; fi
  grep -qxF "$heading" "$TMP/out" || fail "list: no folder heading '$heading' for $f"
  # The file's line comes after its folder's heading and before the next heading.
  awk -v h="$heading" -v n="$name" '$0 == h {in_h = 1; next} /^[^ ].*\/$/ {in_h = 0}
       in_h && $1 == n {found = 1} END {exit !found}' "$TMP/out" || fail "list: $name not under $heading"
done < <(find "$ROOT/examples" -name '*.lua' -type f | sort)
[ "$n" -gt 0 ] || fail "no examples found under $ROOT/examples"
# A summary wrapped over two header lines prints whole, up to the "Shows:" line.
grep -qE '^  its_interleave\.lua +.* __syncwarp\(\) reconverges them before Z\.$' "$TMP/out" ||
  fail "list: the wrapped its_interleave.lua summary is not printed whole"
[ "$(grep -cE '^  [^ ]+\.lua  ' "$TMP/out")" -eq "$n" ] || fail "list: expected $n example lines: $(cat "$TMP/out")"

# A folder of our own: nested groups, a script without a header, a non-Lua file ignored.
mkdir -p "$TMP/ex/b/c"
printf -- '-- top.lua: at the top.\n-- Shows: x\n' >"$TMP/ex/top.lua"
printf -- '-- deep.lua: two levels down.\n' >"$TMP/ex/b/c/deep.lua"
printf -- 'print(1)\n-- bare.lua: not a header: code came first\n' >"$TMP/ex/b/bare.lua"
printf 'not a script\n' >"$TMP/ex/b/notes.txt"
"$WL" list "$TMP/ex" >"$TMP/out" 2>"$TMP/err" || fail "list DIR: exit $?"
cat >"$TMP/want" <<EOF
examples in $TMP/ex

./
  top.lua   at the top.

b/
  bare.lua  (no summary: its first line should read "-- bare.lua: what it shows")

b/c/
  deep.lua  two levels down.

run one: warplab run $TMP/ex/top.lua  (--params lists what -p key=value sets)
EOF
diff "$TMP/want" "$TMP/out" >"$TMP/diff" || fail "list DIR output differs:
$(cat "$TMP/diff")"

# A script that cannot be read (its read fails: /proc/self/mem at offset 0 is EIO) says so
# in its line, and in --json is null with the reason on stderr, never "no summary".
mkdir -p "$TMP/unreadable"
ln -s /proc/self/mem "$TMP/unreadable/mem.lua"
"$WL" list "$TMP/unreadable" >"$TMP/out" 2>"$TMP/err" || fail "list unreadable: exit $?"
grep -qxF "  mem.lua  (cannot read it: Input/output error)" "$TMP/out" ||
  fail "list: an unreadable script's line: $(cat "$TMP/out")"
"$WL" list --json "$TMP/unreadable" >"$TMP/out" 2>"$TMP/err" || fail "list --json unreadable: exit $?"
grep -qF '"summary": null' "$TMP/out" || fail "list --json: unreadable summary: $(cat "$TMP/out")"
grep -qF "warplab: cannot read $TMP/unreadable/mem.lua: Input/output error" "$TMP/err" ||
  fail "list --json: the reason on stderr: $(cat "$TMP/err")"

# A folder that is not there: bad input (exit 4), one sentence naming it.
"$WL" list "$TMP/nope" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 4 ] || fail "missing folder: exit $rc, expected 4"
grep -qF "warplab: examples folder '$TMP/nope' is not a directory" "$TMP/err" ||
  fail "missing folder message: $(cat "$TMP/err")"

# Piped (above): one line per example, however long, so `list | grep` finds the name with
# its whole summary; some summaries are longer than any terminal (the check means something).
"$WL" list >"$TMP/piped" 2>&1
awk 'length > 120 {found = 1} END {exit !found}' "$TMP/piped" || fail "list: no line over 120 columns piped"
# On a terminal (a pty): wrapped to $COLUMNS, else to the terminal's width, a summary's
# continuation lines under its column, and no word lost.
if command -v python3 >/dev/null; then
  for how in "COLUMNS=60" "ioctl 72" "COLUMNS=abc ioctl 90"; do
    python3 - "$WL" "$how" >"$TMP/tty" 2>&1 <<'PY' || fail "list on a pty ($how): $(head -c 500 "$TMP/tty")"
import fcntl, os, struct, subprocess, sys, termios
wl, how = sys.argv[1], sys.argv[2].split()
env = dict(os.environ)
env.pop("COLUMNS", None)
master, slave = os.openpty()
for i, w in enumerate(how):
    if w.startswith("COLUMNS="):
        env["COLUMNS"] = w[8:]
    if w == "ioctl":  # the terminal's size, set before warplab starts
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, int(how[i + 1]), 0, 0))
p = subprocess.Popen([wl, "list"], stdin=slave, stdout=slave, stderr=slave, env=env)
os.close(slave)
out = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the terminal's other side closed
        break
    if not chunk:
        break
    out += chunk
p.wait()
sys.stdout.write(out.decode().replace("\r\n", "\n"))
sys.exit(p.returncode)
PY
    width=${how##* }
    [ "$how" = "COLUMNS=60" ] && width=60
    awk -v w="$width" 'NR > 1 && length > w {print "too long: " $0; bad = 1} END {exit bad}' "$TMP/tty" ||
      fail "list on a pty ($how): lines over $width columns"
    # The words of the piped listing, in order, are those of the wrapped one.
    diff <(tr -s ' \n' '\n\n' <"$TMP/piped") <(tr -s ' \n' '\n\n' <"$TMP/tty") >/dev/null ||
      fail "list on a pty ($how): the words differ from the piped listing"
    grep -qE '^ {8,}[^ ]' "$TMP/tty" || fail "list on a pty ($how): no continuation line under the summaries"
  done
fi

[ "$fails" -eq 0 ] || { echo "$fails failure(s)" >&2; exit 1; }
echo "list.sh: all passed ($n examples)"
