/**
 * The soak's journal: one JSON line per request and outcome, chaos event and check, headed by
 * the run's options (its seed among them), so a bad run can be replayed
 * (`npm run soak -- --replay <journal>`) and its decisions compared line by line.
 *
 * @example
 * const journal = openJournal('/tmp/soak/journal.jsonl', { seed: 7, sessions: 24, minutes: 60 })
 * journal.write({ kind: 'req', session: 's1', op: 'signin', status: 200, ms: 41 })
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'

/** The options a run is made of (what a replay needs). */
export interface RunOptions {
  readonly seed: number
  readonly sessions: number
  readonly cap: number
  readonly minutes: number
  /** Milliseconds between chaos events (randomised ±50 %). */
  readonly chaosEveryMs: number
  /** Milliseconds between quiet periods. */
  readonly quietEveryMs: number
  /** Heal rounds at the end (10 live errands, their browser SIGKILLed). */
  readonly healRounds: number
  readonly out: string
  /**
   * Work the run must have done before it ends: past `minutes` it goes on until every count (a
   * `Stats` field, or `kills`: renderer and browser kills) is reached, or `maxMinutes` passed. A
   * loaded machine then does the same work more slowly instead of less of it.
   */
  readonly atLeast?: { readonly counts: Readonly<Record<string, number>>; readonly maxMinutes: number }
}

/**
 * Opens (truncates) a journal and writes its header.
 *
 * @example
 * const j = openJournal(path, options)
 */
export const openJournal = (path: string, options: RunOptions) => {
  const t0 = Date.now()
  writeFileSync(path, `${JSON.stringify({ kind: 'run', at: new Date(t0).toISOString(), options })}\n`)
  let buffer: string[] = []
  const flush = () => {
    if (buffer.length === 0) return
    appendFileSync(path, buffer.join(''))
    buffer = []
  }
  const timer = setInterval(flush, 1_000)
  timer.unref()
  return {
    path,
    write: (entry: Record<string, unknown>) => {
      buffer.push(`${JSON.stringify({ t: Date.now() - t0, ...entry })}\n`)
      if (buffer.length > 500) flush()
    },
    close: () => {
      clearInterval(timer)
      flush()
    },
  }
}

/** An open journal. */
export type Journal = ReturnType<typeof openJournal>

/**
 * The options and the per-session operation sequences a journal recorded.
 *
 * @example
 * const { options, ops } = readJournal(path)
 */
export const readJournal = (path: string) => {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  const head = lines[0]
  if (head?.kind !== 'run') throw new Error(`${path} is not a soak journal (no run line first)`)
  const ops = new Map<string, string[]>()
  for (const l of lines) {
    if (l.kind !== 'op') continue
    const s = String(l.session)
    ops.set(s, [...(ops.get(s) ?? []), String(l.op)])
  }
  return { options: head.options as RunOptions, ops }
}
