/**
 * The agent task's steps and their runner, without vitest: matrix.ts re-exports them for the
 * tests, and a client that must run in its own Node process (stagehand-child.ts) imports them
 * there.
 *
 * @example
 * const outcome = await runTask({ navigate: async () => …, …, cdp: 'no raw CDP tool' })
 */
/** The steps, in order. */
export const STEPS = [
  'navigate',
  'read',
  'click',
  'type',
  'dialog',
  'newTab',
  'switch',
  'close',
  'screenshot',
  'cdp',
] as const
/** One step's name. */
export type Step = (typeof STEPS)[number]
/** What each step came to: `ok`, or the error's first line. */
export type Outcome = Record<Step, string>

/** First line of an error, without addresses that differ between runs. */
export const firstLine = (e: unknown): string =>
  (e instanceof Error ? e.message : String(e))
    .split('\n')[0]!
    .replace(/ws:\/\/\S+/g, 'ws://…')
    .slice(0, 300)

/** A step's outcome when the client has no way to do it (`runTask` was given a reason, not a function). */
export const NOT_OFFERED = 'not offered: '

/**
 * Runs the task: each step in order, each bounded by `stepMs`; a step that fails is recorded
 * and the task goes on (later steps may then fail too — the comparison shows where it began).
 * A step given as a string is one the client does not offer (no tool for it): recorded as
 * `not offered: <why>` on both sides, never run.
 *
 * @example
 * const outcome = await runTask({ navigate: async () => { await page.goto(url) }, …, cdp: 'no raw CDP tool' })
 */
export const runTask = async (
  steps: Record<Step, (() => Promise<void>) | string>,
  stepMs = 20_000,
): Promise<Outcome> => {
  const outcome = {} as Record<Step, string>
  const took: Record<string, number> = {}
  for (const step of STEPS) {
    const run = steps[step]
    if (typeof run === 'string') {
      outcome[step] = `${NOT_OFFERED}${run}`
      continue
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const started = Date.now()
    try {
      await Promise.race([
        run(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${step}: no answer within ${stepMs} ms`)), stepMs)
        }),
      ])
      outcome[step] = 'ok'
    } catch (e) {
      outcome[step] = firstLine(e)
    } finally {
      clearTimeout(timer)
      took[step] = Date.now() - started
    }
  }
  // MATRIX_LOG=1 also prints where the time went.
  if (process.env.MATRIX_LOG === '1') console.log('step ms', JSON.stringify(took))
  return outcome
}

/**
 * Throws with `what` unless `check` holds.
 *
 * @example
 * must(title === 'Other', `title is ${title}`)
 */
export const must = (check: boolean, what: string): void => {
  if (!check) throw new Error(what)
}
