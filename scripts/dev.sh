#!/usr/bin/env bash
# Runs a TypeScript dev tool (a bench, the soak, a docs script) from source, no build needed:
# tsx's loader, and `@errands/*` resolved through the `@errands/source` export condition to src/*.ts
# (ADR 0018). Never on the runtime path: the host and the CLI run compiled (scripts/start.sh).
#   bash scripts/dev.sh bench/cluster.ts --tasks 40
set -euo pipefail
exec node --conditions=@errands/source --import tsx "$@"
