/**
 * The bench's table: one row per measured side, its median and its ratio to the section's
 * baseline (the first row of the section).
 *
 * @example
 * printTable([{ section: 'open', name: 'raw', median: 600, ratio: 1 }], { rounds: 7 })
 */
import { cpus, totalmem } from 'node:os'

export interface Row {
  readonly section: string
  readonly name: string
  readonly median: number
  readonly ratio: number
  readonly unit?: string
}

export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

export const printTable = (rows: ReadonlyArray<Row>, about: Record<string, unknown>): void => {
  const cpu = cpus()[0]?.model ?? 'cpu'
  console.log(
    `\nErrands bench — ${cpus().length} × ${cpu}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB; ${Object.entries(about)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}\n`,
  )
  let section = ''
  const width = Math.max(...rows.map((r) => r.name.length), 20)
  for (const r of rows) {
    if (r.section !== section) {
      section = r.section
      console.log(`\n${section}`)
      console.log(`  ${'side'.padEnd(width)}  ${'median'.padStart(12)}  ${'ratio'.padStart(7)}`)
    }
    const value = r.unit ? `${r.median.toFixed(r.median < 100 ? 2 : 0)} ${r.unit}` : `${r.median.toFixed(1)} ms`
    console.log(
      `  ${r.name.padEnd(width)}  ${value.padStart(12)}  ` +
        `${Number.isFinite(r.ratio) ? `${r.ratio.toFixed(2)}×`.padStart(7) : ''.padStart(7)}`,
    )
  }
  console.log('')
}
