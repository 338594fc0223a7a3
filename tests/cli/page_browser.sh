#!/usr/bin/env bash
# page_browser.sh: the page of `watch --serve` and the file of `run --html`, in a real
# browser: headless Chromium driven by Selenium (lib/page_browser.py says what it checks).
# Installs chromium, chromium-driver and python3-selenium when missing (apt-get, as the
# build's packages); without them (no package registry) it is skipped, saying so.
# Screenshots of each state: <build>/test-artifacts/page/.
# Usage: bash page_browser.sh <warplab binary> <source root>
set -u
BIN=$1 ROOT=$2
PACKAGES=(chromium chromium-driver python3-selenium)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  echo "installing ${missing[*]}"
  s=""
  [ "$(id -u)" -eq 0 ] || s="sudo -n"
  export DEBIAN_FRONTEND=noninteractive
  # Bounded: a machine without a reachable package registry (a GPU host) skips at once.
  apt=(timeout 300 $s apt-get -o Acquire::http::Timeout=10 -o Acquire::https::Timeout=10 -o Acquire::Retries=0)
  "${apt[@]}" install -y -q "${missing[@]}" >/dev/null 2>&1 ||
    { "${apt[@]}" update -q >/dev/null 2>&1 && "${apt[@]}" install -y -q "${missing[@]}" >/dev/null 2>&1; }
fi
# Debian's python3 (where python3-selenium is), whatever python3 comes first on PATH.
if ! [ -x /usr/bin/chromium ] || ! [ -x /usr/bin/chromedriver ] || ! /usr/bin/python3 -c 'import selenium' 2>/dev/null; then
  echo "skipped: no chromium, chromium-driver and python3-selenium here (apt-get install them)"
  exit 77
fi
ART="$(cd "$(dirname "$BIN")" && pwd)/test-artifacts/page"
exec timeout 300 /usr/bin/python3 "$(dirname "$0")/lib/page_browser.py" "$BIN" "$ROOT" "$ART"
