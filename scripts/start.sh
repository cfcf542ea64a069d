#!/usr/bin/env bash
# The main job (README): sets everything up, then starts the browser host (or another CLI verb).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
exec node_modules/.bin/tsx packages/cli/src/main.ts "${@:-host}"
