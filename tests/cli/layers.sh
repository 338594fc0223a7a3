#!/usr/bin/env bash
# layers.sh: the layering rules of STYLE.md and docs/ARCHITECTURE.md, checked on the
# sources: app -> bind -> lab -> {cu, rtc} -> sys; nothing includes upward, the CUDA, NVRTC
# and lab layers never include Lua, lab includes nothing from bind or app, sys includes
# neither Lua nor CUDA nor NVRTC, no file in host/ (folders included) is over 400 lines, and
# no header in host/bind serves one other file.
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
check sys 'lua|lauxlib|lualib|bind/|app/|lab/|rtc/|cu/|cuda|nvrtc|cupti' "Lua, CUDA, NVRTC or a layer above it"
check cu 'lua|lauxlib|lualib|bind/|app/|lab/|rtc/' "Lua or a layer above it"
check rtc 'lua|lauxlib|lualib|bind/|app/|lab/|cu/' "Lua or a layer above it"
check lab 'lua|lauxlib|lualib|bind/|app/' "Lua or a layer above it (bind, app)"
check bind 'app/' "the program (host/app)"
# host/app is a folder per front end: cli/ (main and what every command shares), run/,
# repl/, watch/, sanitize/, attrs/, compile/, cache/, list/, counters_list/. A folder
# includes another only through app/cli's interfaces (or the layers below); includes name
# their folder ("app/repl/worker.hpp"), so no relative path goes around the rule.
# Lua and the bindings are included only by run/, repl/ and cli/lua_state.*: the commands
# that run no Lua (compile, attrs, cache, list, counters), watch (its runs are child
# processes), sanitize and the rest of cli/ include neither, nor app/cli/lua_state.hpp,
# which does.
while IFS= read -r f; do
  rel=${f#"$ROOT"/host/app/}
  case $rel in
    */*) ;;
    *) bad "host/app/$rel is outside the front ends' folders (host/app/cli, run, repl, ...)"; continue ;;
  esac
  dir=${rel%%/*}
  hits=$(grep -nE '#include [<"]app/' "$f" | grep -vE "#include [<\"]app/($dir|cli)/"
    grep -nE '#include "' "$f" | grep -vE '#include "(app|bind|lab|cu|rtc|sys)/')
  [ -z "$hits" ] || bad "host/app/$rel includes another app folder (only app/cli is shared) or a path without its folder:"$'\n'"$hits"
  case $rel in run/* | repl/* | cli/lua_state.*) continue ;; esac
  hits=$(grep -nE '#include [<"](lua|lauxlib|lualib|bind/|app/cli/lua_state)' "$f")
  [ -z "$hits" ] || bad "host/app/$rel includes Lua or the bindings (only run/, repl/ and cli/lua_state.* may):"$'\n'"$hits"
done < <(find "$ROOT/host/app" -type f \( -name '*.cpp' -o -name '*.hpp' \) | sort)
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
