#!/usr/bin/env node
/**
 * Prints the slowest test files of a vitest JSON report as a Markdown table (docs/testing.md).
 *
 * @example
 * // ERRANDS_TEST_REPORT=/tmp/report.json npm test; node scripts/slowest.mjs /tmp/report.json 10
 */
import { readFileSync } from 'node:fs'

const [file, count = '10'] = process.argv.slice(2)
if (file === undefined) {
  process.stderr.write('usage: node scripts/slowest.mjs <vitest JSON report> [how many]\n')
  process.exit(2)
}
const report = JSON.parse(readFileSync(file, 'utf8'))
const rows = report.testResults
  .map((r) => ({ file: r.name.replace(/^.*?\/(?=(?:test|packages|machines|scripts)\/)/, ''), s: (r.endTime - r.startTime) / 1000, status: r.status }))
  .sort((a, b) => b.s - a.s)
const total = (report.testResults.reduce((m, r) => Math.max(m, r.endTime), 0) - report.startTime) / 1000
process.stdout.write(`| file | seconds | status |\n|---|---:|---|\n`)
for (const r of rows.slice(0, Number(count))) process.stdout.write(`| ${r.file} | ${r.s.toFixed(1)} | ${r.status} |\n`)
process.stdout.write(`\n${report.numTotalTests} tests in ${report.testResults.length} files, ${report.numFailedTests} failed; vitest wall time ${total.toFixed(0)} s\n`)
