#!/usr/bin/env bash
# layers.sh: the layering rules of STYLE.md and docs/ARCHITECTURE.md, checked on the
# sources: app -> bind -> lab -> {cu, rtc}; nothing includes upward, the CUDA, NVRTC and
# lab layers never include Lua, lab includes nothing from bind or app, no file in host/
# (folders included) is over 400 lines, and no header in host/bind serves one other file.
# Usage: bash layers.sh <warplab binary (unused)> <source root>
set -u
ROOT=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }
sources() { find "$ROOT/host/$1" -type f \( -name '*.cpp' -o -name '*.hpp' \) | sort; }
check() {  # layer, forbidden include pattern, what
  local hits
  hits=$(sources "$1" | xargs grep -nE "#include [<\"]($2)" 2>/dev/null)
  [ -z "$hits" ] || bad "host/$1 includes $3:"$'\n'"$hits"
}
check cu 'lua|lauxlib|lualib|bind/|app/|lab/|rtc/' "Lua or a layer above it"
check rtc 'lua|lauxlib|lualib|bind/|app/|lab/|cu/' "Lua or a layer above it"
check lab 'lua|lauxlib|lualib|bind/|app/' "Lua or a layer above it (bind, app)"
check bind 'app/' "the program (host/app)"
# The commands that run no Lua (compile, attrs, cache, list) and what every command shares
# (cli.hpp, exit_codes.hpp) include neither Lua nor the bindings: app/lua_state.hpp does.
for f in cli.hpp exit_codes.hpp cmd_compile.cpp cmd_attrs.cpp cmd_cache.cpp cmd_list.cpp; do
  hits=$(grep -nE '#include [<"](lua|lauxlib|lualib|bind/|app/lua_state|app/repl_worker)' "$ROOT/host/app/$f" 2>/dev/null)
  [ -z "$hits" ] || bad "host/app/$f includes Lua or the bindings:"$'\n'"$hits"
done
# A file past 400 lines usually holds two concepts (STYLE.md), in every folder of host/.
while IFS= read -r f; do
  n=$(wc -l <"$f")
  [ "$n" -le 400 ] || bad "${f#$ROOT/} has $n lines (the limit is 400)"
done < <(find "$ROOT/host" -type f \( -name '*.cpp' -o -name '*.hpp' \) | sort)
# A header in host/bind is for what several files use: one that a single other bind file
# includes (its own .cpp, of the same name, not counted) only splits one concept in two,
# and its declarations belong in that file. One no bind file includes is the program's
# (state.hpp: host/app includes it).
for h in "$ROOT"/host/bind/*.hpp; do
  name=$(basename "$h"); own="$ROOT/host/bind/${name%.hpp}.cpp"
  users=$(grep -lE "#include \"bind/$name\"" "$ROOT"/host/bind/*.cpp "$ROOT"/host/bind/*.hpp 2>/dev/null |
    grep -vxF -e "$own" -e "$h")
  [ "$(printf '%s\n' "$users" | grep -c .)" -ne 1 ] ||
    bad "host/bind/$name is included by one other bind file only (${users#$ROOT/}): declare what it holds there"
done
# Bindings are plain functions, not a macro that hides their names from indexers.
hits=$(find "$ROOT/host" -type f -name '*.cpp' -print0 | xargs -0 grep -nE '^[[:space:]]*WL_LUA_FN\(' 2>/dev/null)
[ -z "$hits" ] || bad "WL_LUA_FN is gone: write 'static int name(lua_State* L) { return guard(L, ...); }':"$'\n'"$hits"
[ $fail -eq 0 ] && echo "layers: ok"
exit $fail
