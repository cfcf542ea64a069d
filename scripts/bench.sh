#!/usr/bin/env bash
# The bench command (README): side-by-side medians and ratios. Arguments pass through.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
exec node --expose-gc node_modules/.bin/tsx bench/run.ts "$@"
