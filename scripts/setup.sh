#!/usr/bin/env bash
# Everything the two commands need on a fresh machine: packages and a Chromium.
# Sourced by start.sh and test.sh; exports CHROMIUM_PATH. Says what is missing when it cannot help.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

need_node_major=20
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt "$need_node_major" ]; then
  echo "errands: Node.js $need_node_major or newer is needed (found: $(node --version 2>/dev/null || echo none))." >&2
  exit 1
fi

# Packages: install when node_modules is missing or older than the lockfile.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "errands: installing packages (npm ci)…" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

# Chromium: CHROMIUM_PATH, then Debian's, then install Debian's when we may.
source scripts/find-or-install.sh
find_chromium() {
  for candidate in "${CHROMIUM_PATH:-}" /usr/lib/chromium/chromium /usr/bin/chromium /usr/bin/chromium-browser; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  return 1
}
if [ -n "${CHROMIUM_PATH:-}" ] && [ ! -x "$CHROMIUM_PATH" ]; then
  echo "errands: CHROMIUM_PATH is set to '$CHROMIUM_PATH', which is not an executable file." >&2
  exit 1
fi
chromium=$(find_or_install find_chromium chromium \
  "no Chromium found. Install one (Debian/Ubuntu: 'sudo apt-get install chromium') or set CHROMIUM_PATH to its binary.") || exit
export CHROMIUM_PATH="$chromium"
