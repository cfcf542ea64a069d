#!/usr/bin/env bash
# Hunts flaky tests instead of waiting for CI to find them (docs/testing.md, "Flake hunt"): runs the
# browser and system tiers N times in a shuffled order (files and the tests in them) from a seed, optionally
# with two busy loops beside them (CI's load on two cores), and says which tests failed in which run and
# how to run that order again. Every failure is a bug to fix at its cause — a wait on what the system did,
# never a sleep or a retry (CI runs without retries).
#
#   bash scripts/flake-hunt.sh [--runs N] [--seed S] [--load] [-- <vitest args, e.g. a file>]
#   npm run flake-hunt -- --runs 5 --load
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=3
seed=$(( $(date +%s) % 100000 ))
load=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --load) load=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "flake-hunt: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
source scripts/setup.sh
bash scripts/setup-postgres.sh >/dev/null
source scripts/build.sh
export ERRANDS_BUILT=1
out=$(mktemp -d /tmp/errands-flake-hunt.XXXXXX)
busy=()
stop_busy() { for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_busy EXIT
if [ "$load" = 1 ]; then
  for _ in 1 2; do node -e 'for (;;) {}' & busy+=($!); done
  echo "flake-hunt: two busy loops beside the tests (pids ${busy[*]})"
fi
failed=0
for i in $(seq 1 "$runs"); do
  s=$(( seed + i - 1 ))
  echo "flake-hunt: run $i of $runs, seed $s"
  if node_modules/.bin/vitest run --project browser --project system --sequence.shuffle --sequence.seed="$s" \
    --reporter=dot --reporter=json "--outputFile.json=$out/run-$i.json" "$@" >"$out/run-$i.log" 2>&1; then
    echo "flake-hunt: run $i passed"
  else
    failed=$(( failed + 1 ))
    echo "flake-hunt: run $i FAILED (seed $s; log $out/run-$i.log); failing tests:"
    node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
      for (const f of r.testResults) for (const t of f.assertionResults)
        if (t.status === "failed") console.log(`  ${f.name.replace(process.cwd() + "/", "")} > ${t.fullName}`)
      if (r.numFailedTestSuites > 0 && r.numFailedTests === 0) console.log("  (a file failed to load or its hooks failed: see the log)")
    ' "$out/run-$i.json" 2>/dev/null || tail -30 "$out/run-$i.log"
    echo "  again: npx vitest run --project browser --project system --sequence.shuffle --sequence.seed=$s $*"
  fi
done
echo "flake-hunt: $failed of $runs runs failed (first seed $seed, logs in $out)"
[ "$failed" = 0 ]
