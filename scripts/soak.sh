#!/usr/bin/env bash
# The soak command (docs/reliability.md): drives the real host with parallel sessions and a chaos
# loop, writes <out>/report.md, chart.png and journal.jsonl. Arguments pass through:
#   npm run soak -- --minutes 60 --sessions 24 --seed 42 [--out /tmp/soak] [--replay JOURNAL]
#   npm run soak -- --seal-kills 1000 --minutes 60 [--out /tmp/soak-seal]
# The driver runs from source (tsx, `@errands/source` condition); the host children it SIGKILLs and
# restarts run the compiled packages (dist/, built here first), what a service manager runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
source scripts/build.sh
exec node --conditions=@errands/source --import tsx soak/main.ts "$@"
