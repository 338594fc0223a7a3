#!/usr/bin/env bash
# layers.sh: the layering rules of STYLE.md and docs/ARCHITECTURE.md, checked on the
# sources: app -> bind -> lab -> {cu, rtc}; nothing includes upward, the CUDA, NVRTC and
# lab layers never include Lua, no host source file is over 400 lines.
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
check cu 'lua|lauxlib|lualib|bind/|app/|lab/|rtc/' "Lua or a layer above it"
check rtc 'lua|lauxlib|lualib|bind/|app/|lab/|cu/' "Lua or a layer above it"
check lab 'lua|lauxlib|lualib|bind/|app/' "Lua or a layer above it"
check bind 'app/' "the program (host/app)"
# The commands that run no Lua (compile, attrs, cache, list) and what every command shares
# (cli.hpp, exit_codes.hpp) include neither Lua nor the bindings: app/lua_state.hpp does.
for f in cli.hpp exit_codes.hpp cmd_compile.cpp cmd_attrs.cpp cmd_cache.cpp cmd_list.cpp; do
  hits=$(grep -nE '#include [<"](lua|lauxlib|lualib|bind/|app/lua_state|app/repl_worker)' "$ROOT/host/app/$f" 2>/dev/null)
  [ -z "$hits" ] || bad "host/app/$f includes Lua or the bindings:"$'\n'"$hits"
done
for f in "$ROOT"/host/*/*.cpp "$ROOT"/host/*/*.hpp; do
  n=$(wc -l <"$f")
  [ "$n" -le 400 ] || bad "${f#$ROOT/} has $n lines (the limit is 400)"
done
# Bindings are plain functions, not a macro that hides their names from indexers.
hits=$(grep -nE '^[[:space:]]*WL_LUA_FN\(' "$ROOT"/host/*/*.cpp 2>/dev/null)
[ -z "$hits" ] || bad "WL_LUA_FN is gone: write 'static int name(lua_State* L) { return guard(L, ...); }':"$'\n'"$hits"
[ $fail -eq 0 ] && echo "layers: ok"
exit $fail
