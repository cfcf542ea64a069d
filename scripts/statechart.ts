/**
 * Writes the errand machine's state chart, generated from `machines/errand/machine.ts`, into
 * `docs/errand-machine.md` (between the statechart markers) and `docs/errand-machine.mmd`.
 * `scripts/statechart.test.ts` fails when the committed chart is out of date.
 *
 * @example
 * npx tsx scripts/statechart.ts          # rewrite the chart
 * npx tsx scripts/statechart.ts --check  # exit 1 when it is out of date
 */
import { errandMachine } from '@errands/machines'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { markdownBlock, statechartOf, withBlock } from './statechart/mermaid.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const doc = path.join(root, 'docs', 'errand-machine.md')
const mmd = path.join(root, 'docs', 'errand-machine.mmd')

const chart = statechartOf(errandMachine)
const wanted = new Map([
  [doc, withBlock(fs.readFileSync(doc, 'utf8'), markdownBlock(chart))],
  [mmd, chart.mermaid],
])
const stale = [...wanted].filter(([file, text]) => !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text)

if (process.argv.includes('--check')) {
  for (const [file] of stale)
    process.stderr.write(`${path.relative(root, file)} is out of date: run npx tsx scripts/statechart.ts\n`)
  process.exitCode = stale.length === 0 ? 0 : 1
} else {
  for (const [file, text] of stale) fs.writeFileSync(file, text)
  process.stdout.write(
    stale.length === 0
      ? 'the state chart is up to date\n'
      : `wrote ${stale.map(([f]) => path.relative(root, f)).join(', ')}\n`,
  )
}
