#!/usr/bin/env bash
# Brings every package's dist/ up to date (ESM JavaScript, .d.ts, source maps; ADR 0018):
# `tsc -b` over tsconfig.build.json's project references, incremental — only what changed since
# the last build is compiled again. Sourced by start.sh and test.sh after setup.sh.
# Type errors are reported (stderr) and fail the build; tsc -b has still written what it could.
node node_modules/typescript/bin/tsc -b tsconfig.build.json >&2
# The live view's front end, bundled into packages/liveview/dist/web/ (what the packed package serves).
node --input-type=module -e "await (await import('@errands/liveview')).bundleWeb()" >&2
# The demo journals, beside the compiled CLI, so `errands demo` works from the packed package too.
mkdir -p packages/cli/dist/journals && cp journals/*.jsonl packages/cli/dist/journals/
