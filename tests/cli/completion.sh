#!/usr/bin/env bash
# completion.sh: `warplab completion bash|zsh` prints scripts generated from the CLI: bash's
# is driven here through COMP_WORDS (subcommands, every option each `--help` lists plus
# the global ones after the subcommand, profile names, attribute names after `attrs`,
# counter sets and short names after `counters` and `--counters`,
# --arch values, files by extension, script arguments after --); zsh's is parsed and,
# where zsh is installed, driven through a pty (zsh/zpty) with the same cases. Writing a
# script compiles nothing.
# Usage: bash completion.sh <warplab binary> <source root>
source "$(dirname "$0")/lib/offline.sh" "$@"
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$BIN" completion bash >"$T/warplab.bash" || fail "completion bash: exit $?"
"$BIN" completion zsh >"$T/_warplab" || fail "completion zsh: exit $?"
"$BIN" completion fish >/dev/null 2>"$T/err"
[ $? -eq 2 ] || fail "completion fish: want exit 2"
bash -n "$T/warplab.bash" || fail "the bash script does not parse"
# Writing a script compiles nothing (listing the --arch values by compiling 24 empty
# programs cost 0.35 s and more): NVRTC's builtins library, which it loads to compile, is
# never loaded (the dynamic loader's own record, not a clock).
for shell in bash zsh; do
  LD_DEBUG=files "$BIN" completion $shell 2>"$T/ld" >/dev/null
  grep -q "file=libnvrtc-builtins" "$T/ld" && fail "completion $shell compiles (NVRTC's builtins were loaded)"
done
LD_DEBUG=files "$BIN" --no-cache compile "$ROOT/kernels_src/warps/thread_ids.cu" 2>"$T/ld" >/dev/null
grep -q "file=libnvrtc-builtins" "$T/ld" || fail "a compile did not load NVRTC's builtins: the check above proves nothing"

# complete WORDS...: the candidates bash would offer for the last word.
complete_words() {
  (
    source "$T/warplab.bash"
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMPREPLY=()
    _warplab
    printf '%s\n' "${COMPREPLY[@]}"
  ) 2>&1 | sort -u
}
# offers WANT WORDS...: WANT (one word) is among the candidates.
offers() {
  local want=$1
  shift
  complete_words "$@" | grep -qxF -- "$want" || fail "'$*<TAB>' does not offer '$want': $(complete_words "$@" | head -c 300)"
}
lacks() {
  local no=$1
  shift
  complete_words "$@" | grep -qxF -- "$no" && fail "'$*<TAB>' offers '$no'"
}

cd "$ROOT" || exit 1
for sub in attrs compile occupancy run cache repl watch list counters; do offers "$sub" warplab ""; done
lacks completion warplab ""
offers run warplab --profile h100 r
offers run warplab -q r
# Every option `SUB --help` lists, and every global one, after the subcommand.
for sub in attrs compile occupancy run cache repl watch list counters; do
  complete_words warplab "$sub" - >"$T/c"
  for o in $("$BIN" "$sub" --help | sed -n '/^Options:/,/^$/p;/^Global options/,/^$/p' |
             grep -oE -- '(^|[ ,])--?[a-zA-Z][a-z-]*' | tr -d ' ,' | sort -u); do
    grep -qxF -- "$o" "$T/c" || fail "'warplab $sub -<TAB>' lacks $o"
  done
done
# Values: profiles (names and .json files), attributes, archs, tools, fixed words.
for p in h100 h200; do
  offers "$p" warplab --profile ""
  offers "$p" warplab run x.lua --profile ""
  offers "$p" warplab attrs --diff ""
done
offers tests/data/profiles/synthetic_profile.json warplab --profile tests/data/profiles/s
offers max_threads_per_block warplab attrs max_thr
offers warp_size warplab attrs --profile h100 warp_s
offers all warplab attrs --device a
offers sm_90a warplab compile k.cu --arch sm_90
offers compute_90 warplab compile --arch compute_9
# occupancy: its .cu file, its own --profile (profile names, as the global one), its options.
offers kernels_src/warps/thread_ids.cu warplab occupancy kernels_src/warps/thread_
lacks examples/tour.lua warplab occupancy examples/to
offers rtx4090 warplab occupancy k.cu --profile rtx
offers a100 warplab occupancy --block 256 k.cu --profile ""
offers --shared warplab occupancy k.cu --sh
offers --block warplab --profile h100 occupancy k.cu --bl
offers kernels_src/warps/thread_ids.cu warplab occupancy --block 256 --shared 4K kernels_src/warps/thread_
offers racecheck warplab run --sanitize r
offers clear warplab cache c
# Counter sets and short names: `counters WORD`, and --counters (with list).
offers shared warplab counters sh
offers shared_ld_conflicts warplab counters shared_ld_c
lacks list warplab counters l
offers list warplab run x.lua --counters l
offers memory warplab run --counters mem
offers stall_barrier warplab watch x.lua --counters stall_b
# Files: .cu for compile, .lua for run and watch, anything after --.
offers kernels_src/warps/thread_ids.cu warplab compile kernels_src/warps/thread_
lacks kernels_src/warps/thread_ids.cu warplab run kernels_src/warps/thread_
offers examples/tour.lua warplab run examples/to
offers examples/tour.lua warplab -q watch examples/to
offers README.md warplab run x.lua -- READ
# The shipped examples by their `warplab list` names, from any folder (run finds them so).
cd "$T" || exit 1
offers warps/ids.lua warplab run war
offers warps/ids.lua warplab -q watch warps/i
offers tour.lua warplab run to
lacks warps/ids.lua warplab compile war
cd "$ROOT" || exit 1
lacks README.md warplab run READ
# help: the commands and the environment topic (not a command: not offered first); -p: the
# parameters the script declares (`run SCRIPT --params`), as NAME=, wherever the script and
# the options stand; none before the script is known.
offers help warplab ""
offers attrs warplab help a
offers run warplab -q help r
offers environment warplab help e
lacks environment warplab ""
export PATH="$(cd "$(dirname "$BIN")" && pwd):$PATH"  # the scripts call `warplab` as typed
for p in block= grid= rows= save=; do
  offers "$p" warplab run examples/warps/ids.lua -p ""
  offers "$p" warplab run warps/ids.lua --param ""
done
offers rows= warplab --profile h100 run -q --sanitize memcheck warps/ids.lua -p r
lacks block= warplab run warps/ids.lua -p r
offers n= warplab watch examples/tour.lua --clear -p ""
lacks block= warplab run examples/tour.lua -p b -- -p ""
lacks n= warplab run -p ""
lacks n= warplab run examples/tour.lua --sanitize ""

# zsh: parses; completes like bash when zsh is here.
if ! command -v zsh >/dev/null; then
  echo "note: zsh is not installed: its script was generated but not run"
  exit $((failures > 0))
fi
zsh -n "$T/_warplab" || fail "the zsh script does not parse"
mkdir -p "$T/zfunc" && cp "$T/_warplab" "$T/zfunc/"
# A pty runs an interactive zsh; each case types the words and Tab, then ^X, bound to a
# widget that prints the line between markers: the read waits for those, not for a timer.
cat >"$T/drive.zsh" <<'ZSH'
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='> '; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'dump() { print -r -- "<<[$BUFFER]>>"; BUFFER=; }; zle -N dump; bindkey "^X" dump'
zpty -w z 'print RE""ADY'
zpty -r z out '*READY*'
while IFS= read -r line; do
  zpty -w -n z "$line"$'\t\x18'
  zpty -r z out '*<<\[*\]>>*'
  print -r -- "${${out##*<<\[}%%\]>>*}"
done <"$2"
zpty -d z
ZSH
cat >"$T/cases" <<'EOF'
warplab --prof
warplab --profile h1
warplab run examples/tour.lua --prof
warplab run examples/tour.lua --profile h2
warplab attrs max_threads_per_m
warplab attrs --device a
warplab compile --arch sm_90
warplab compile kernels_src/warps/thread_i
warplab cache i
warplab -q ru
warplab watch x.lua --cl
warplab run --sanitize race
warplab run examples/warps/ids.lua -p ro
warplab -q run warps/ids.lua --param gr
warplab counters shared_st_conflicts_p
EOF
cat >"$T/want" <<'EOF'
warplab --profile 
warplab --profile h100 
warplab run examples/tour.lua --profile 
warplab run examples/tour.lua --profile h200 
warplab attrs max_threads_per_multiprocessor 
warplab attrs --device all 
warplab compile --arch sm_90
warplab compile kernels_src/warps/thread_ids.cu 
warplab cache info 
warplab -q run 
warplab watch x.lua --clear 
warplab run --sanitize racecheck 
warplab run examples/warps/ids.lua -p rows=
warplab -q run warps/ids.lua --param grid=
warplab counters shared_st_conflicts_per_request 
EOF
timeout 60 zsh -f "$T/drive.zsh" "$T/zfunc" "$T/cases" >"$T/got" 2>&1 || fail "the zsh pty session failed or timed out"
diff "$T/want" "$T/got" >"$T/diff" || fail "zsh completions differ (want, got):
$(cat "$T/diff")"
exit $((failures > 0))
