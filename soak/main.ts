/**
 * `npm run soak -- [--minutes N] [--sessions K] [--seed S] [--cap C] [--out DIR] [--replay JOURNAL]`
 * (and `--seal-kills N` for the seal-kill loop alone): runs the soak, writes `<out>/report.md`,
 * `<out>/chart.png` and `<out>/journal.jsonl`, prints the table, and exits 1 when it found
 * anything — printing the seed and the journal that replays it.
 *
 * @example
 * // npm run soak -- --minutes 60 --sessions 24 --seed 42
 */
import { join } from 'node:path'
import { readJournal, type RunOptions } from './journal.ts'
import { writeReport } from './report.ts'
import { runSoak } from './run.ts'
import { sealKillLoop } from './sealkill.ts'

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}
const int = (name: string, fallback: number, min: number, max: number): number => {
  const raw = flag(name)
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) {
    process.stderr.write(`soak: --${name} must be a whole number from ${min} to ${max} (got ${raw})\n`)
    process.exit(2)
  }
  return n
}

const out = flag('out') ?? '/tmp/soak'
const replay = flag('replay')
const say = (line: string) => process.stderr.write(`soak: ${line}\n`)

if (flag('seal-kills') !== undefined) {
  const result = await sealKillLoop(
    {
      kills: int('seal-kills', 1000, 1, 100_000),
      minutes: int('minutes', 60, 1, 1440),
      out,
      seed: int('seed', 1, 0, 2 ** 31),
    },
    say,
  )
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
  process.exit(result.violations.length === 0 ? 0 : 1)
}

const minutes = int('minutes', 60, 1, 1440)
const recorded = replay === undefined ? undefined : readJournal(replay)
const options: RunOptions = recorded?.options
  ? { ...recorded.options, out }
  : {
      seed: int('seed', Date.now() % 1_000_000, 0, 2 ** 31),
      sessions: int('sessions', 24, 1, 200),
      cap: int('cap', 6, 1, 32),
      minutes,
      chaosEveryMs: int('chaos-ms', 10_000, 1000, 600_000),
      quietEveryMs: int('quiet-ms', Math.max(60_000, Math.min(300_000, (minutes * 60_000) / 6)), 10_000, 3_600_000),
      healRounds: int('heal-rounds', minutes >= 10 ? 10 : 2, 0, 1000),
      out,
    }
say(
  `seed ${options.seed}, ${options.sessions} sessions, cap ${options.cap}, ${options.minutes} min, out ` +
    `${out}${replay ? ` (replaying ${replay})` : ''}`,
)
const result = await runSoak(options, say)
const table = await writeReport(result, out)
process.stdout.write(table)
if (recorded) {
  const now = readJournal(join(out, 'journal.jsonl'))
  for (const [session, ops] of recorded.ops) {
    const again = now.ops.get(session) ?? []
    const n = Math.min(ops.length, again.length)
    const at = ops.slice(0, n).findIndex((op, i) => op !== again[i])
    process.stdout.write(
      `replay ${session}: ${at < 0 ? `same ${n} ops` : `differs at op ${at}: ${ops[at]} then, ${again[at]} now`}\n`,
    )
  }
}
if (result.violations.length > 0) {
  process.stderr.write(
    `soak: ${result.violations.length} violations — seed ${options.seed}, journal ${result.journal}\n` +
      `replay: npm run soak -- --replay ${result.journal} --out ${out}-replay\n`,
  )
  process.exit(1)
}
process.exit(0)
