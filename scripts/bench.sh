#!/usr/bin/env bash
# The bench command (README): side-by-side medians and ratios. Arguments pass through.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
# `--import tsx` keeps one process (the tsx binary starts a child without --expose-gc).
exec node --expose-gc --import tsx bench/run.ts "$@"
