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
if ! chromium=$(find_chromium); then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "errands: installing Debian's chromium (apt-get install -y chromium)…" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2
  fi
  if ! chromium=$(find_chromium); then
    echo "errands: no Chromium found. Install one (Debian/Ubuntu: 'sudo apt-get install chromium') or set CHROMIUM_PATH to its binary." >&2
    exit 1
  fi
fi
export CHROMIUM_PATH="$chromium"
