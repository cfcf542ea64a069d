#!/usr/bin/env node
/**
 * Reads a vitest JSON report (docs/testing.md, "Time"): prints the slowest test files as a
 * Markdown table, or, with `--durations`, writes every file's seconds to `test/durations.json`
 * for the longest-first order of `test/setup/sequencer.ts`.
 *
 * @example
 * // ERRANDS_TEST_REPORT=/tmp/report.json npm test; node scripts/slowest.mjs /tmp/report.json 10
 * // node scripts/slowest.mjs /tmp/report.json --durations
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const [file, arg = '10'] = process.argv.slice(2)
if (file === undefined) {
  process.stderr.write('usage: node scripts/slowest.mjs <vitest JSON report> [how many | --durations]\n')
  process.exit(2)
}
const report = JSON.parse(readFileSync(file, 'utf8'))
const rows = report.testResults
  .map((r) => ({
    file: r.name.replace(/^.*?\/(?=(?:test|packages|machines|scripts)\/)/, ''),
    s: (r.endTime - r.startTime) / 1000,
    status: r.status,
  }))
  .sort((a, b) => b.s - a.s)
if (arg === '--durations') {
  const out = join(import.meta.dirname, '..', 'test', 'durations.json')
  writeFileSync(
    out,
    `${JSON.stringify(Object.fromEntries(rows.map((r) => [r.file, Math.round(r.s * 10) / 10])), null, 2)}\n`,
  )
  process.stdout.write(`test/durations.json: ${rows.length} files\n`)
  process.exit(0)
}
const total = (report.testResults.reduce((m, r) => Math.max(m, r.endTime), 0) - report.startTime) / 1000
process.stdout.write(`| file | seconds | status |\n|---|---:|---|\n`)
for (const r of rows.slice(0, Number(arg))) process.stdout.write(`| ${r.file} | ${r.s.toFixed(1)} | ${r.status} |\n`)
process.stdout.write(
  `\n${report.numTotalTests} tests in ${report.testResults.length} files, ${report.numFailedTests} failed; vitest ` +
    `wall time ${total.toFixed(0)} s\n`,
)
