# offline.sh: the setup the offline CLI tests share, sourced as
# `source "$(dirname "$0")/lib/offline.sh" "$@"`: BIN and ROOT from the arguments, the
# synthetic profile as FIX, no driver (WARPLAB_NO_DRIVER=1), no profile from the
# environment, a scratch folder T removed on exit, and a failure counter.
set -u
BIN=$1 ROOT=$2
FIX=$ROOT/tests/data/profiles/synthetic_profile.json
export WARPLAB_NO_DRIVER=1
unset WARPLAB_PROFILE
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
failures=0
