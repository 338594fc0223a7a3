#!/usr/bin/env bash
# install.sh: `cmake --install` to a temporary prefix: the binary stripped, the bash and
# zsh completions current and loadable, the manual page current (`man` renders it), the
# Debian copyright file agreeing with LICENSE. The tree moved elsewhere, and the source
# checkout hidden (a private mount namespace lays an empty tmpfs over it, so no path from
# the build machine can be used): the tour runs, `warplab list` and the Lua library come
# from the installed share/warplab, and an example runs by its list name from another
# folder. Then `cpack -G DEB`, unpacked the same way, with its control fields, completions,
# manual page and copyright.
# Skipped (77) where BIN's folder is not a CMake build (a carried build-gpu/).
# scripts/deb-check installs the .deb on a clean Debian 12 (not in CI).
# Usage: bash install.sh <warplab binary> <source root>
set -u
BIN=$1 ROOT=$(cd "$2" && pwd)
B=$(cd "$(dirname "$BIN")" && pwd)
[ -f "$B/cmake_install.cmake" ] || { echo "skip: $B is not a CMake build folder"; exit 77; }
T=$(mktemp -d /tmp/warplab-install.XXXXXX) && trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; [ -f "$T/out" ] && sed 's/^/    /' "$T/out" | tail -20; exit 1; }
export WARPLAB_NO_DRIVER=1
unset WARPLAB_LUA_DIR WARPLAB_KERNELS_DIR WARPLAB_PROFILE

cmake --install "$B" --prefix "$T/p" >"$T/out" 2>&1 || fail "cmake --install"
for f in bin/warplab share/warplab/lua/warplab/report.lua share/warplab/examples/tour.lua \
         share/warplab/kernels_src/include/warplab/reduce.cuh share/warplab/profiles/h100.json \
         share/warplab/profiles/sm_86.json share/doc/warplab/copyright \
         share/bash-completion/completions/warplab share/zsh/vendor-completions/_warplab \
         share/man/man1/warplab.1.gz; do
  [ -s "$T/p/$f" ] || fail "the install has no $f"
done
# Stripped on install, as the .deb is (install.cmake).
readelf -S "$T/p/bin/warplab" | grep -q '\.debug_info' && fail "cmake --install left the debug information in bin/warplab"
readelf -S "$T/p/bin/warplab" | grep -q '\.symtab' && fail "cmake --install left the symbol table in bin/warplab"
# Smaller than the build's binary by its symbols (a size bound would fail a sanitizer build,
# whose stripped binary is 24 MB).
[ "$(stat -c %s "$T/p/bin/warplab")" -lt "$(stat -c %s "$BIN")" ] || fail "bin/warplab is as large as the build's: not stripped"
# The completions are what this binary writes now (they cannot lag behind it), and bash
# loads them; the copyright file is Debian's format, with LICENSE's terms word for word.
"$BIN" completion bash | cmp -s - "$T/p/share/bash-completion/completions/warplab" || fail "the bash completion is stale"
"$BIN" completion zsh | cmp -s - "$T/p/share/zsh/vendor-completions/_warplab" || fail "the zsh completion is stale"
bash -c '. "$0" && complete -p warplab' "$T/p/share/bash-completion/completions/warplab" >"$T/out" 2>&1 ||
  fail "bash cannot load the installed completion"
# The manual page: gzip -9n of what this binary writes, found by man under the prefix.
"$BIN" man | cmp -s - <(gzip -dc "$T/p/share/man/man1/warplab.1.gz") || fail "the manual page is stale"
if command -v man >/dev/null && man --version 2>/dev/null | grep -q man-db; then
  MANWIDTH=80 man -l "$T/p/share/man/man1/warplab.1.gz" >"$T/out" 2>&1 || fail "man -l the installed page"
  grep -q '^WARPLAB(1)' "$T/out" && ! grep -qi 'warning' "$T/out" || fail "man -l the installed page: $(head -3 "$T/out")"
  MANPATH="$T/p/share/man" MANWIDTH=80 man warplab 2>&1 | grep -q '^NAME' || fail "man warplab with MANPATH=PREFIX/share/man"
fi
c="$T/p/share/doc/warplab/copyright"
[ "$(head -1 "$c")" = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ] || fail "copyright: Format line"
grep -qx 'Copyright: 2026 the warplab authors' "$c" || fail "copyright: warplab's Copyright line"
# The text of the stand-alone "License: Expat" paragraph: its indented lines, " ." blank.
awk '/^License: Expat$/ { grab = 1; next } grab && /^ / { print; next } { grab = 0 }' "$c" |
  sed 's/^ //; s/^\.$//' >"$T/expat"
sed -n '/^Permission/,$p' "$ROOT/LICENSE" | diff - "$T/expat" >"$T/out" || fail "copyright's Expat text differs from LICENSE"
grep -qx 'Copyright (c) 2026 the warplab authors' "$ROOT/LICENSE" || fail "LICENSE: copyright line"
mv "$T/p" "$T/moved"

# Runs "$@" with the source checkout (and so the build folder in it) hidden, when the
# system allows a private mount namespace; else as it is, saying so.
hidden() {
  if unshare --mount --propagation private true 2>/dev/null; then
    unshare --mount --propagation private bash -c 'mount -t tmpfs none "$0" && exec "$@"' "$ROOT" "$@"
  else
    echo "note: no mount namespace here: the checkout stays visible" >&2
    "$@"
  fi
}
W="$T/moved/bin/warplab"
(cd "$T" && hidden "$W" --profile h100 run "$T/moved/share/warplab/examples/tour.lua") >"$T/out" 2>&1 ||
  fail "the tour from the moved install"
grep -q "no GPU here" "$T/out" || fail "the tour did not reach its end offline"
hidden "$W" --profile h100 list >"$T/out" 2>&1 || fail "list"
grep -q "^examples in $T/moved/share/warplab/examples$" "$T/out" || fail "list does not use the installed examples"
# An example by its list name, from a folder that holds no examples (the checkout hidden).
mkdir -p "$T/elsewhere"
(cd "$T/elsewhere" && hidden "$W" --profile h100 run warps/ids.lua -q -p block=32x1) >"$T/out" 2>&1 ||
  fail "run warps/ids.lua by its list name from another folder"
grep -q "32x1" "$T/out" || fail "warps/ids.lua by name: $(head -c 300 "$T/out")"
(cd "$T/elsewhere" && hidden "$W" run warps/ids.lua --params) >"$T/out" 2>&1 || fail "run warps/ids.lua --params"
grep -qE '^rows +32 +integer$' "$T/out" || fail "--params of the installed ids.lua: $(cat "$T/out")"
printf 'io.write(package.path)\n' >"$T/path.lua"
hidden "$W" --profile h100 run "$T/path.lua" >"$T/out" 2>/dev/null || fail "package.path"
grep -q "$T/moved/share/warplab/lua/?.lua" "$T/out" || fail "the Lua library is not the installed one"
hidden "$W" --profile h100 compile "$T/moved/share/warplab/kernels_src/reductions/ladder.cu" >"$T/out" 2>&1 ||
  fail "a kernel that includes <warplab/...> from the installed kernels_src"

# The Debian package, unpacked (dpkg -i would change this machine).
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null; then
  (cd "$T" && cpack -G DEB --config "$B/CPackConfig.cmake" -B "$T/deb") >"$T/out" 2>&1 || fail "cpack -G DEB"
  deb=$(ls "$T"/deb/*.deb 2>/dev/null | head -n 1)
  [ -n "$deb" ] || fail "cpack made no .deb"
  dpkg-deb -f "$deb" Package Depends Recommends >"$T/out" && grep -q "^Package: warplab" "$T/out" || fail "the package's control fields"
  # Depends: what the binary links (dpkg-shlibdeps at pack time); NVRTC recommended from
  # NVIDIA's repository; the binary stripped (scripts/deb-check installs it on Debian 12).
  grep -q '^Depends: libc6 (>= [0-9.]*), libedit2.*libstdc++6 (>= [0-9]*)' "$T/out" || fail "Depends lacks libc6/libedit2/libstdc++6"
  grep -q '^Recommends: cuda-nvrtc-[0-9]*-[0-9]*' "$T/out" || fail "no Recommends of NVIDIA's cuda-nvrtc"
  dpkg-deb -x "$deb" "$T/root" || fail "dpkg-deb -x"
  readelf -S "$T/root/usr/bin/warplab" | grep -q '\.debug_info' && fail "the packed binary keeps its debug information"
  for f in usr/share/doc/warplab/copyright usr/share/bash-completion/completions/warplab \
           usr/share/zsh/vendor-completions/_warplab usr/share/man/man1/warplab.1.gz; do
    cmp -s "$T/root/$f" "$T/moved/${f#usr/}" || fail "the package's $f differs from the install's"
  done
  (cd "$T" && hidden "$T/root/usr/bin/warplab" --profile h100 run "$T/root/usr/share/warplab/examples/tour.lua") \
    >"$T/out" 2>&1 || fail "the tour from the unpacked package"
fi
echo "install: ok"
