#!/usr/bin/env bash
# repl_help.sh: `:help NAME` prints terminal text, not Markdown: `:help cuda.graph` used to
# print "([Graphs](#graphs))", `:help cuda.compile` "(below)", which points nowhere in a
# terminal. Every row of the API table is looked at (through names that together match
# them all): no link syntax, no backticks, no "(below)" or "(above)", no HTML comment;
# a link reads as its text and where it leads.
set -u
W="$1"; SRC="$2"
FIX="$SRC/tests/data/profiles/synthetic_profile.json"
export WARPLAB_NO_DRIVER=1 XDG_STATE_HOME="$(mktemp -d)"
T="$(mktemp -d)"; trap 'rm -rf "$T" "$XDG_STATE_HOME"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; exit 1; }
help() { printf ':help %s\n' "$@" | timeout 60 "$W" --profile "$FIX" repl >"$T/out" 2>"$T/err" || fail ":help $*: exit $?"; }

help cuda.graph
grep -q '^cuda.graph(fn): calls fn(s) while capturing .* returns the graph (Graphs in docs/lua-api.md)  (e.g. local g = cuda.graph(function(s) k:launch(1, 32, x) end))$' "$T/out" ||
  fail ":help cuda.graph: the link as its text and its page"
help cuda.compile
grep -q "^cuda.compile(path): compiles a .cu file for the device's architecture  (e.g. " "$T/out" ||
  fail ":help cuda.compile without (below)"
help k:occupancy
grep -q '^k:occupancy{...}: the occupancy table; also k:occupancy(256)  (e.g. ' "$T/out" || fail ":help k:occupancy"
help cuda.array
grep -q 'on demand (Managed arrays in docs/lua-api.md)' "$T/out" || fail ":help cuda.array: a section link"

# Every row: each starts with a name in backticks, which one of these matches.
rows=$(grep -c '^| `' "$SRC/docs/lua-api.md")
help cuda dev m k a h s e g row rows map -- o p x r t n l b c d f i j q u v w y z _ . : '{' '('
shown=$(sort -u "$T/out" | grep -c ': ')
[ "$shown" -ge "$rows" ] || fail "only $shown lines for the $rows rows of docs/lua-api.md"
bad=$(grep -nE '\]\(|`|\((below|above)\)|below\)|<!--' "$T/out")
[ -z "$bad" ] || fail "Markdown in :help: $bad"
echo "repl_help: ok ($rows rows, $shown lines)"
