#!/usr/bin/env bash
# The test command (README): sets everything up, type-checks, runs unit and real-Chromium tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
echo "errands: Chromium at $CHROMIUM_PATH ($("$CHROMIUM_PATH" --version 2>/dev/null | head -1))"
# The Postgres tests start throw-away servers from Debian's binaries (installed here, once, when
# missing and root — before the test files start them in parallel).
pg_bin=$(bash scripts/setup-postgres.sh)
echo "errands: Postgres at $pg_bin ($("$pg_bin/postgres" --version 2>/dev/null | head -1))"
npx turbo run typecheck vitest --log-prefix=none --log-order=stream "$@"
