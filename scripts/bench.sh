#!/usr/bin/env bash
# The bench command (README): side-by-side medians and ratios. Arguments pass through.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
# `--import tsx` keeps one process (the tsx binary starts a child without --expose-gc);
# `--conditions=@errands/source` runs the packages from src/ (ADR 0018), no build needed.
exec node --expose-gc --conditions=@errands/source --import tsx bench/run.ts "$@"
