/**
 * Saying what the model-based suite is doing while it runs, and never waiting forever.
 *
 * - `MODEL_VERBOSE=1`: to stderr, one line per run and one per step — the time since the suite
 *   started, run number, step number, the step, and the milliseconds of the step and of its
 *   checks — plus "still waiting" every 10 s while one step runs. CI stays quiet (nothing is
 *   printed unless the variable is set).
 * - `MODEL_STEP_DEADLINE_MS` (default {@link DEFAULT_STEP_DEADLINE_MS}): a step, its checks, an
 *   engine start or an engine stop that takes longer fails the run with {@link StepDeadline},
 *   which names it — a hang is a failure like any other: fast-check reports and shrinks it and
 *   the journal is written.
 *
 * @example
 * const progress = new Progress()
 * progress.run()                                   // run 1
 * await progress.within('open(t0)', 'step', sys.run(supervisor.open(task)))
 */
import { SystemFailure } from './system.ts'

/** The per-step deadline unless `MODEL_STEP_DEADLINE_MS` says otherwise. @example stepDeadlineMs() // 60_000 */
export const DEFAULT_STEP_DEADLINE_MS = 60_000

/**
 * The per-step deadline, decoded once at the edge: a positive integer of milliseconds.
 *
 * @example
 * stepDeadlineMs({ MODEL_STEP_DEADLINE_MS: '5000' }) // 5000
 */
export const stepDeadlineMs = (env: NodeJS.ProcessEnv = process.env): number => {
  const raw = env.MODEL_STEP_DEADLINE_MS
  if (raw === undefined || raw === '') return DEFAULT_STEP_DEADLINE_MS
  const ms = Number(raw)
  if (!Number.isInteger(ms) || ms < 1)
    throw new Error(`MODEL_STEP_DEADLINE_MS must be a positive integer of milliseconds, got ${JSON.stringify(raw)}`)
  return ms
}

/**
 * A step (or its checks, or an engine start/stop) did not finish within the deadline: the
 * engine or the test hung. A {@link SystemFailure}, so the property fails and shrinks.
 *
 * @example
 * new StepDeadline('run 2, step 7: crash (the step)', 60_000)
 */
export class StepDeadline extends SystemFailure {
  override readonly name = 'StepDeadline'
  constructor(
    readonly what: string,
    readonly deadlineMs: number,
  ) {
    super(`${what} did not finish within ${deadlineMs} ms (MODEL_STEP_DEADLINE_MS): the engine or the test hung`)
  }
}

/** What is being waited for: the step itself, the invariant checks after it, or the engine's start or stop. */
export type Phase = 'step' | 'checks' | 'start' | 'stop'

/**
 * Run and step counters, the verbose log and the deadline of one suite run.
 *
 * @example
 * const progress = new Progress({ verbose: true, deadlineMs: 5_000 })
 */
export class Progress {
  readonly verbose: boolean
  readonly deadlineMs: number
  private readonly t0 = Date.now()
  private runs = 0
  private steps = 0

  constructor(options: { readonly verbose?: boolean; readonly deadlineMs?: number } = {}) {
    this.verbose = options.verbose ?? process.env.MODEL_VERBOSE === '1'
    this.deadlineMs = options.deadlineMs ?? stepDeadlineMs()
  }

  /** A new run (a fresh engine): steps count from 1 again. */
  run(): void {
    this.runs++
    this.steps = 0
  }

  /** A new step of the current run; returns its number. */
  step(): number {
    return ++this.steps
  }

  /** Where the suite is, for messages: `run 3, step 7`, or `run 3` before its first step. */
  where(step = this.steps): string {
    return step === 0 ? `run ${this.runs}` : `run ${this.runs}, step ${step}`
  }

  /** Writes one progress line to stderr when verbose. */
  log(line: string): void {
    if (this.verbose) process.stderr.write(`[model +${((Date.now() - this.t0) / 1000).toFixed(1)}s] ${line}\n`)
  }

  /**
   * Waits for `work`, but at most the deadline: then rejects with {@link StepDeadline} naming
   * `what` and `phase` (the work itself is left running; the caller stops the engine). When
   * verbose, says every {@link HEARTBEAT_MS} that it is still waiting, and says when it failed.
   */
  async within<A>(what: string, phase: Phase, work: Promise<A>, deadlineMs = this.deadlineMs): Promise<A> {
    const started = Date.now()
    const label = `${what} (${phase === 'step' ? 'the step' : phase === 'checks' ? 'its checks' : `engine ${phase}`})`
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StepDeadline(label, deadlineMs)), deadlineMs)
    })
    const heartbeat = this.verbose
      ? setInterval(
          () => this.log(`${label}: still waiting after ${Math.round((Date.now() - started) / 1000)} s`),
          HEARTBEAT_MS,
        )
      : undefined
    try {
      return await Promise.race([work, deadline])
    } catch (error) {
      this.log(
        `${label}: FAILED after ${Date.now() - started} ms: ` +
          `${error instanceof Error ? error.message.split('\n').slice(0, 3).join(' | ') : String(error)}`,
      )
      throw error
    } finally {
      clearTimeout(timer)
      clearInterval(heartbeat)
    }
  }
}

/** How often a verbose run says it is still waiting for one step. @example setInterval(beat, HEARTBEAT_MS) */
export const HEARTBEAT_MS = 10_000
