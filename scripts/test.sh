#!/usr/bin/env bash
# The test command (README, docs/testing.md): sets everything up, checks format and lint, builds the
# packages (incremental), type-checks, then runs the three vitest tiers — unit, browser, system. Arguments pass
# through to vitest: `npm test -- --project unit`, `npm test -- test/host/process.test.ts`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
echo "errands: Chromium at $CHROMIUM_PATH ($("$CHROMIUM_PATH" --version 2>/dev/null | head -1))"
# The Postgres tests use a throw-away server from Debian's binaries (installed here, once, when
# missing and root — before vitest's globalSetup starts it).
pg_bin=$(bash scripts/setup-postgres.sh)
echo "errands: Postgres at $pg_bin ($("$pg_bin/postgres" --version 2>/dev/null | head -1))"
# test/containment/machine.test.ts gives an interface it makes itself an address (`ip`, iproute2;
# as root): installed here when missing and root, like Chromium and Postgres. Without it that test
# uses an address the machine already has.
find_ip() { command -v ip; }
no_ip="no 'ip' (iproute2) found: test/containment/machine.test.ts uses an address the machine has."
find_or_install find_ip iproute2 "$no_ip" >/dev/null || true
started=$(date +%s)
# Format and lint (Biome, line width 120; docs/adr/0039-biome.md): a formatting slip fails the run here, in a second,
# not in review.
echo "errands: checking format and lint (biome ci .)…"
node_modules/.bin/biome ci --colors=off --diagnostic-level=warn --max-diagnostics=20 .
echo "errands: building packages (tsc -b, incremental)…"
source scripts/build.sh
echo "errands: type-checking (tsc -p tsconfig.json)…"
node node_modules/typescript/bin/tsc -p tsconfig.json --noEmit
echo "errands: build and type-check took $(( $(date +%s) - started )) s"
# Built above: the tiers' globalSetup need not build again.
export ERRANDS_BUILT=1
# ERRANDS_TEST_REPORT=<file>: also write vitest's JSON report there (per-file durations, docs/testing.md).
report=()
if [ -n "${ERRANDS_TEST_REPORT:-}" ]; then report=(--reporter=default --reporter=json "--outputFile.json=$ERRANDS_TEST_REPORT"); fi
exec node_modules/.bin/vitest run "${report[@]}" "$@"
