#!/usr/bin/env bash
# The main job (README): sets everything up, builds what changed, then runs the compiled CLI with
# plain `node` (the browser host by default, or another CLI verb). `exec`, so a service manager's
# SIGTERM reaches the host itself. stdout stays the program's own (`errands mcp` speaks JSON-RPC
# on it): every set-up step writes to stderr.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
# ERRANDS_BUILT=1: the caller built dist/ a moment ago (scripts/test.sh, the tests' globalSetup).
if [ "${ERRANDS_BUILT:-}" = "1" ]; then
  :
elif ! source scripts/build.sh; then
  # A half-finished edit in a shared tree must not stop the host: tsc -b emitted what it could.
  if [ ! -f packages/cli/dist/main.js ]; then echo "errands: the build failed (above)." >&2; exit 1; fi
  echo "errands: the build reported errors (above); starting the output it wrote." >&2
fi
exec node packages/cli/dist/main.js "${@:-host}"
