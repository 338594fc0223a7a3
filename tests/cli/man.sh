#!/usr/bin/env bash
# man.sh: `warplab man` writes the manual page from the command-line definition: every
# command `warplab --help` lists with every option its --help shows, the global options,
# every environment variable of `help environment`'s table, the exit codes of
# docs/exit-codes.md; groff
# (and man, where man-db is installed) render it without a warning; the build's
# man/warplab.1 and warplab.1.gz (what `cmake --install` installs) are this binary's page.
# Usage: bash man.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$BIN" man >"$T/warplab.1" 2>"$T/err" || fail "warplab man: exit $?"
[ -s "$T/err" ] && fail "warplab man: stderr: $(cat "$T/err")"
head -2 "$T/warplab.1" | grep -q '^\.TH WARPLAB 1 ' || fail "no .TH line"
for s in NAME SYNOPSIS DESCRIPTION COMMANDS "GLOBAL OPTIONS" ENVIRONMENT FILES "EXIT STATUS" "SEE ALSO"; do
  grep -qx "\.SH $s" "$T/warplab.1" || fail "no section $s"
done

# Rendered as a reader sees it: groff with every warning on, and man -l where it exists.
# Without groff (scripts/setup.sh installs groff-base where warplab is built; a GPU host
# that only runs the tests may lack it) the page cannot be read as a reader sees it: skip.
if ! command -v groff >/dev/null; then
  echo "skipped: no groff here (apt-get install groff-base) to render the page"
  exit 77
fi
groff -man -Tutf8 -ww -z "$T/warplab.1" 2>"$T/err" || fail "groff: exit $?"
[ -s "$T/err" ] && fail "groff warns: $(head -5 "$T/err")"
groff -man -Tascii -P-c -P-b -P-u "$T/warplab.1" 2>/dev/null >"$T/page"
if command -v man >/dev/null && man --version 2>/dev/null | grep -q man-db; then
  MANWIDTH=100 man -l "$T/warplab.1" >"$T/man.txt" 2>"$T/err" || fail "man -l: exit $?"
  [ -s "$T/err" ] && fail "man -l warns: $(head -5 "$T/err")"
  grep -q "^WARPLAB(1)" "$T/man.txt" || fail "man -l: no WARPLAB(1) header"
fi

# Every command with every option its --help shows, and every global option.
"$BIN" --help >"$T/top"
mapfile -t cmds < <(sed -n '/^Subcommands:/,/^$/p' "$T/top" | awk 'NR > 1 && NF {print $1}')
[ ${#cmds[@]} -ge 8 ] || fail "only ${#cmds[@]} commands"
for c in "${cmds[@]}"; do
  grep -qE "^ +warplab $c( |$)" "$T/page" || fail "the page has no 'warplab $c' heading"
  # The command's section: from its heading to the next command's.
  awk -v c="$c" '$0 ~ "^ +warplab " c "( |$)" {on = 1; print; next} on && /^ +warplab [a-z]+( \[|$| [A-Z])/ {on = 0} on' \
    "$T/page" >"$T/section"
  "$BIN" "$c" --help | sed -n '/^Options:/,/^$/p' | grep -oE -- '--[a-z][a-z-]*' | grep -vx -- '--help' | sort -u |
    while read -r o; do grep -qE -- "(^| |,)$o( |,|$)" "$T/section" || echo "$o"; done >"$T/missing"
  [ -s "$T/missing" ] && fail "the page's '$c' lacks: $(tr '\n' ' ' <"$T/missing")"
done
sed -n '/^Options:/,/^$/p' "$T/top" | grep -oE -- '--[a-z][a-z-]*' | sort -u | while read -r o; do
  sed -n '/^GLOBAL OPTIONS/,/^ENVIRONMENT/p' "$T/page" | grep -qE -- "(^| |,)$o( |,|$)" || echo "$o"
done >"$T/missing"
[ -s "$T/missing" ] && fail "GLOBAL OPTIONS lacks: $(tr '\n' ' ' <"$T/missing")"
grep -qE -- '-V, --version' "$T/page" || fail "the page does not give -V"

# The environment: each variable of `warplab help environment`'s table.
"$BIN" help environment | sed -n '/^Environment:$/,/^$/p' |
  sed -n 's/^  \([A-Za-z_][A-Za-z0-9_, ]*[A-Za-z0-9_]\)  .*/\1/p' >"$T/vars"
[ "$(wc -l <"$T/vars")" -ge 15 ] || fail "help environment lists $(wc -l <"$T/vars") variables"
while IFS= read -r v; do
  sed -n '/^ENVIRONMENT/,/^FILES/p' "$T/page" | grep -qE "^       $v( |$)" || fail "ENVIRONMENT lacks $v"
done <"$T/vars"
grep -q 'WARPLAB_CACHE_DIR, else $XDG_CACHE_HOME/warplab' "$T/page" || fail "FILES: where the cache is"

# The exit codes: the same numbers as docs/exit-codes.md.
sed -n '/^EXIT STATUS/,/^SEE ALSO/p' "$T/page" | grep -oE '^       [0-9]+( |$)' | tr -d ' ' | sort -n >"$T/codes"
grep -oE '^\| [0-9]+ \|' "$ROOT/docs/exit-codes.md" | tr -d '| ' | sort -n >"$T/doc_codes"
diff "$T/doc_codes" "$T/codes" >"$T/diff" || fail "EXIT STATUS differs from docs/exit-codes.md: $(cat "$T/diff")"

# What the build installs is this binary's page (cannot be stale).
B=$(dirname "$BIN")
if [ -f "$B/CMakeCache.txt" ]; then
  cmp -s "$T/warplab.1" "$B/man/warplab.1" || fail "$B/man/warplab.1 is not what this binary writes"
  gzip -dc "$B/man/warplab.1.gz" | cmp -s "$T/warplab.1" - || fail "$B/man/warplab.1.gz is not what this binary writes"
fi
exit $((failures > 0))
