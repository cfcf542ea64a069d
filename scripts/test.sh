#!/usr/bin/env bash
# The test command (README): sets everything up, type-checks, runs unit and real-Chromium tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
echo "errands: Chromium at $CHROMIUM_PATH ($("$CHROMIUM_PATH" --version 2>/dev/null | head -1))"
npx turbo run typecheck vitest --log-prefix=none --log-order=stream "$@"
