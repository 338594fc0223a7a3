#!/usr/bin/env bash
# environment.sh: the table of environment variables that `warplab help environment` prints
# (and the man page and docs/cli.md repeat; `warplab --help` ends with its common rows, the
# ones docs/cli.md marks ★) is complete and true: every variable the sources read
# (getenv in host/, os.getenv in lua/ and examples/) is in it, every name in it is read
# somewhere, and docs/cli.md's table lists exactly the same names. The Files lines say where
# the compile cache lives, as `warplab cache info` reports it.
# Usage: bash environment.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# names NAME...: the variables of an Environment: table on stdin, one per line, sorted.
names() { sed -n '/^Environment:$/,/^$/p' | sed -n 's/^  \([A-Za-z_][A-Za-z0-9_, ]*[A-Za-z0-9_]\)  .*/\1/p' |
  tr ',' '\n' | tr -d ' ' | sort -u; }
"$BIN" help environment >"$T/env" || fail "help environment: exit $?"
names <"$T/env" >"$T/help_names"
[ "$(wc -l <"$T/help_names")" -ge 15 ] || fail "help environment lists $(wc -l <"$T/help_names") variables"
# --help: the common ones, a line naming the rest, and the Files.
"$BIN" --help >"$T/help" || fail "--help: exit $?"
names <"$T/help" >"$T/common"
[ "$(wc -l <"$T/common")" -ge 5 ] || fail "--help lists $(wc -l <"$T/common") variables"
[ "$(wc -l <"$T/common")" -lt "$(wc -l <"$T/help_names")" ] || fail "--help lists every variable"
comm -23 "$T/common" "$T/help_names" | grep -q . && fail "--help lists a variable help environment does not"
more=$(( $(wc -l <"$T/help_names") - $(wc -l <"$T/common") ))
grep -q "^  and $more more (.*): warplab help environment$" "$T/help" ||
  fail "--help does not say how many more and where (want 'and $more more ... warplab help environment')"
"$BIN" help env >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "did you mean 'environment'" "$T/out" || fail "help env: exit $rc, $(cat "$T/out")"

# Every name read: getenv("NAME") / os.getenv("NAME"), and the lists a getenv(var) loop reads.
{
  grep -rhoE 'getenv\("[A-Za-z_][A-Za-z0-9_]*"\)' "$ROOT/host" "$ROOT/lua" "$ROOT/examples" | sed -E 's/.*\("(.*)"\)/\1/'
  find "$ROOT/host" -name '*.cpp' -exec awk '
    match($0, /for \(const char\* [a-z]+ : \{/) { v = $0; sub(/.*const char\* /, "", v); sub(/ .*/, "", v); loop = $0; next }
    loop != "" && index($0, "getenv(" v ")") { print loop }
    { loop = "" }' {} + | grep -oE '"[A-Za-z_][A-Za-z0-9_]*"' | tr -d '"'
} | sort -u >"$T/read"
[ "$(wc -l <"$T/read")" -ge 15 ] || fail "found only $(wc -l <"$T/read") variables read in the sources"
comm -23 "$T/read" "$T/help_names" >"$T/missing"
[ -s "$T/missing" ] && fail "read by warplab but not in --help's Environment: $(tr '\n' ' ' <"$T/missing")"
comm -13 "$T/read" "$T/help_names" >"$T/extra"
[ -s "$T/extra" ] && fail "in --help's Environment but read nowhere: $(tr '\n' ' ' <"$T/extra")"

# docs/cli.md: the table under "## Environment" lists the same names.
sed -n '/^## Environment/,/^## /p' "$ROOT/docs/cli.md" | grep -E '^\| `' | cut -d'|' -f2 |
  grep -oE '`[A-Za-z_][A-Za-z0-9_]*`' | tr -d '`' | sort -u >"$T/doc_names"
diff "$T/help_names" "$T/doc_names" >"$T/diff" || fail "docs/cli.md's Environment table differs from help environment (< help, > docs):
$(cat "$T/diff")"
# Its rows marked ★ are the ones --help lists.
sed -n '/^## Environment/,/^## /p' "$ROOT/docs/cli.md" | grep -E '^\| `[^|]*★ \|' | cut -d'|' -f2 |
  grep -oE '`[A-Za-z_][A-Za-z0-9_]*`' | tr -d '`' | sort -u >"$T/doc_common"
diff "$T/common" "$T/doc_common" >"$T/diff" || fail "docs/cli.md's ★ rows differ from --help's (< help, > docs):
$(cat "$T/diff")"

# Files: where the cache lives, as cache info says, in each case the footer names.
grep -qF 'compile cache: $WARPLAB_CACHE_DIR, else $XDG_CACHE_HOME/warplab, else ~/.cache/warplab' "$T/help" ||
  fail "--help: the cache's place"
mkdir -p "$T/home"
for env in "WARPLAB_CACHE_DIR=$T/c1|$T/c1" "XDG_CACHE_HOME=$T/x|$T/x/warplab" "HOME=$T/home|$T/home/.cache/warplab"; do
  set_var=${env%%|*} want=${env#*|}
  got=$(env -u WARPLAB_CACHE_DIR -u XDG_CACHE_HOME "$set_var" "$BIN" cache info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["dir"])')
  [ "$got" = "$want" ] || fail "$set_var: cache info says $got, want $want"
done
exit $((failures > 0))
