#!/usr/bin/env bash
# layers.sh: the layering rules of STYLE.md and docs/ARCHITECTURE.md, checked on the
# sources: app -> bind -> lab -> {cu, rtc} -> sys; nothing includes upward, the CUDA, NVRTC
# and lab layers never include Lua, sys includes neither Lua nor CUDA nor NVRTC, no host
# source file is over 400 lines and none in host/bind over 150.
# Usage: bash layers.sh <warplab binary (unused)> <source root>
set -u
ROOT=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }
check() {  # layer, forbidden include pattern, what
  local hits
  hits=$(grep -nE "#include [<\"]($2)" "$ROOT"/host/"$1"/*.cpp "$ROOT"/host/"$1"/*.hpp 2>/dev/null)
  [ -z "$hits" ] || bad "host/$1 includes $3:"$'\n'"$hits"
}
check sys 'lua|lauxlib|lualib|bind/|app/|lab/|rtc/|cu/|cuda|nvrtc|cupti' "Lua, CUDA, NVRTC or a layer above it"
check cu 'lua|lauxlib|lualib|bind/|app/|lab/|rtc/' "Lua or a layer above it"
check rtc 'lua|lauxlib|lualib|bind/|app/|lab/|cu/' "Lua or a layer above it"
check lab 'lua|lauxlib|lualib|bind/|app/' "Lua or a layer above it"
check bind 'app/' "the program (host/app)"
# host/app is a folder per front end: cli/ (main and what every command shares), run/,
# repl/, watch/, sanitize/, attrs/, compile/, cache/, list/. A folder includes another only
# through app/cli's interfaces (or the layers below); includes name their folder
# ("app/repl/worker.hpp"), so no relative path goes around the rule.
# Lua and the bindings are included only by run/, repl/ and cli/lua_state.*: the commands
# that run no Lua (compile, attrs, cache, list), watch (its runs are child processes),
# sanitize and the rest of cli/ include neither, nor app/cli/lua_state.hpp, which does.
while IFS= read -r f; do
  rel=${f#"$ROOT"/host/app/}
  case $rel in
    */*) ;;
    *) bad "host/app/$rel is outside the front ends' folders (host/app/cli, run, repl, ...)"; continue ;;
  esac
  dir=${rel%%/*}
  hits=$(grep -nE '#include [<"]app/' "$f" | grep -vE "#include [<\"]app/($dir|cli)/"
    grep -nE '#include "' "$f" | grep -vE '#include "(app|bind|lab|cu|rtc)/')
  [ -z "$hits" ] || bad "host/app/$rel includes another app folder (only app/cli is shared) or a path without its folder:"$'\n'"$hits"
  case $rel in run/* | repl/* | cli/lua_state.*) continue ;; esac
  hits=$(grep -nE '#include [<"](lua|lauxlib|lualib|bind/|app/cli/lua_state)' "$f")
  [ -z "$hits" ] || bad "host/app/$rel includes Lua or the bindings (only run/, repl/ and cli/lua_state.* may):"$'\n'"$hits"
done < <(find "$ROOT/host/app" -type f \( -name '*.cpp' -o -name '*.hpp' \) | sort)
for f in "$ROOT"/host/*/*.cpp "$ROOT"/host/*/*.hpp; do
  n=$(wc -l <"$f")
  [ "$n" -le 400 ] || bad "${f#$ROOT/} has $n lines (the limit is 400)"
done
# host/bind is adapters only: read the Lua arguments, call lab/cu/rtc, push the results.
for f in "$ROOT"/host/bind/*.cpp "$ROOT"/host/bind/*.hpp; do
  n=$(wc -l <"$f")
  [ "$n" -le 150 ] || bad "${f#$ROOT/} has $n lines (host/bind holds adapters: the limit is 150)"
done
# Bindings are plain functions, not a macro that hides their names from indexers.
hits=$(grep -nE '^[[:space:]]*WL_LUA_FN\(' "$ROOT"/host/*/*.cpp 2>/dev/null)
[ -z "$hits" ] || bad "WL_LUA_FN is gone: write 'static int name(lua_State* L) { return guard(L, ...); }':"$'\n'"$hits"
[ $fail -eq 0 ] && echo "layers: ok"
exit $fail
