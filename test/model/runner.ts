/**
 * Running the model-based suite: the property (random step lists, `fc.commands` +
 * `fc.asyncModelRun`), a failure written out as a replayable journal, and the replay of a
 * journal — exactly those steps, nothing random.
 *
 * Budgets (see docs/model-suite.md):
 * - default (CI): a fixed seed, {@link CI_BUDGET};
 * - `ERRANDS_SOAK=1`: `SOAK_RUNS` runs (default 40) of up to `SOAK_STEPS` steps (default 60), a
 *   fresh seed each time unless `FC_SEED` is set;
 * - `MODEL_REPLAY=path`: runs just the journal at `path`.
 *
 * @example
 * const outcome = await checkModel(server, { numRuns: 3, maxCommands: 20 })
 * if (outcome.failed) console.log(outcome.journalPath)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import type { NamedSites } from '../lending/server.ts'
import { StepCommand, type Recorder } from './commands.ts'
import { initialModel, type Model } from './model.ts'
import { Progress } from './progress.ts'
import { ALWAYS, decodeJournal, encodeJournal, stepArbitrary, stepText, type Step } from './steps.ts'
import { cookiesBySite, ModelSystem, type Fault } from './system.ts'

/**
 * Open errand contexts allowed at once in the suite: small, so parking by the cap happens often. @example
 * initialModel({ cap: CAP, always: [], main: {} })
 */
export const CAP = 2

/**
 * The CI budget: finishes in well under 3 minutes on a loaded 2-core machine. @example checkModel(server, {
 * ...CI_BUDGET, seed: DEFAULT_SEED })
 */
export const CI_BUDGET = { numRuns: 4, maxCommands: 25 } as const

/**
 * The seed of the default run (the project's CI seed), unless `FC_SEED` says otherwise. @example
 * Number(process.env.FC_SEED ?? DEFAULT_SEED)
 */
export const DEFAULT_SEED = 20261202

/** What a run needs. @example const o: ModelRunOptions = { fault: 'leak-cookie' } */
export interface ModelRunOptions {
  readonly cap?: number | undefined
  readonly fault?: Fault | undefined
  /** Progress lines and the step deadline; by default from `MODEL_VERBOSE` and `MODEL_STEP_DEADLINE_MS`. */
  readonly progress?: Progress | undefined
}

const setupFor =
  (server: NamedSites, options: ModelRunOptions, started: ModelSystem[], progress: Progress) =>
  async (): Promise<{ model: Model; real: ModelSystem }> => {
    const cap = options.cap ?? CAP
    const t0 = Date.now()
    const real = await progress.within(
      `${progress.where(0)}: a fresh engine`,
      'start',
      ModelSystem.start(server, { cap, fault: options.fault }, (sys) => started.push(sys)),
    )
    progress.log(`${progress.where(0)}: engine started in ${Date.now() - t0} ms`)
    const main = cookiesBySite(await real.mainContext().cookies())
    return { model: initialModel({ cap, always: ALWAYS, main }), real }
  }

/**
 * Stops every engine a run started, each within the deadline (a hung one has its Chromium
 * killed). Returns the first failure to stop, if any.
 */
const stopAll = async (started: ReadonlyArray<ModelSystem>, progress: Progress, failed: boolean): Promise<unknown> => {
  let failure: unknown
  for (const sys of started) {
    // The engine's own log says what it was doing when a run failed or hung.
    if (failed && progress.verbose)
      progress.log(`${progress.where()}: the engine's last log lines:\n    ${sys.logs.slice(-40).join('\n    ')}`)
    try {
      await progress.within(
        `${progress.where()}: engine teardown`,
        'stop',
        sys.stop(progress.deadlineMs),
        progress.deadlineMs + 15_000,
      )
    } catch (error) {
      failure ??= error
    }
  }
  return failure
}

/**
 * Runs exactly these steps on a fresh engine (steps the model cannot run are skipped, as in the
 * property), checking every invariant after each. Rejects with the first violation.
 *
 * @example
 * await runSteps(server, decodeJournal(readFileSync(path, 'utf8')))
 */
export const runSteps = async (
  server: NamedSites,
  steps: ReadonlyArray<Step>,
  options: ModelRunOptions = {},
): Promise<Step[]> => {
  const progress = options.progress ?? new Progress()
  const recorder: Recorder = { ran: [], progress }
  const started: ModelSystem[] = []
  progress.run()
  let failure: unknown
  try {
    await fc.asyncModelRun(
      setupFor(server, options, started, progress),
      steps.map((s) => new StepCommand(s, recorder)),
    )
  } catch (error) {
    failure = error
  }
  const stopFailure = await stopAll(started, progress, failure !== undefined)
  failure ??= stopFailure
  if (failure !== undefined) throw failure
  return recorder.ran
}

/**
 * Replays the journal at `path`.
 *
 * @example
 * await replayJournal(server, process.env.MODEL_REPLAY!)
 */
export const replayJournal = (server: NamedSites, path: string, options: ModelRunOptions = {}): Promise<Step[]> =>
  runSteps(server, decodeJournal(readFileSync(path, 'utf8')), options)

/**
 * Writes a journal of `steps` (JSON lines, with `#` comment lines saying how to replay) and
 * returns its path. The directory is `MODEL_JOURNAL_DIR`, else `<tmpdir>/errands-model-journals`.
 *
 * @example
 * const path = writeJournal(steps, 'seed 42')
 */
export const writeJournal = (steps: ReadonlyArray<Step>, note: string, at?: string): string => {
  const dir = process.env.MODEL_JOURNAL_DIR ?? join(tmpdir(), 'errands-model-journals')
  mkdirSync(dir, { recursive: true })
  const path = at ?? join(dir, `failure-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}.jsonl`)
  writeFileSync(
    path,
    `# ${note}\n# replay: MODEL_REPLAY=${path} npx vitest run --project browser ` +
      `test/model/engine.test.ts\n${encodeJournal(steps)}`,
  )
  return path
}

/** The outcome of {@link checkModel}. @example if (outcome.failed) console.error(describeFailure(outcome)) */
export interface ModelOutcome {
  readonly failed: boolean
  readonly seed: number
  readonly numRuns: number
  /** fast-check's report (seed, path, shrunk counterexample) when it failed. */
  readonly report: string | undefined
  /** The shrunk failing steps, as run, and where they were written. */
  readonly steps: ReadonlyArray<Step> | undefined
  readonly journalPath: string | undefined
  readonly error: unknown
  /** How many times each kind of step ran, over every run (shrinking included). */
  readonly tally: Readonly<Record<string, number>>
  /** Milliseconds spent starting engines, and per kind of step (the step, then its checks). */
  readonly ms: Readonly<Record<string, unknown>>
}

/**
 * Runs the property: random step lists, each on a fresh engine, every invariant after every
 * step. On failure the last failing run — fast-check's shrunk counterexample — is written as a
 * journal.
 *
 * @example
 * const outcome = await checkModel(server, { numRuns: 4, maxCommands: 25, seed: 1 })
 */
export const checkModel = async (
  server: NamedSites,
  budget: {
    readonly numRuns: number
    readonly maxCommands: number
    readonly seed?: number | undefined
    readonly endOnFailure?: boolean | undefined
  },
  options: ModelRunOptions = {},
): Promise<ModelOutcome> => {
  const progress = options.progress ?? new Progress()
  const recorder: Recorder = { ran: [], ms: {}, progress }
  const tally: Record<string, number> = {}
  let setupMs = 0
  let lastFailing: Step[] | undefined
  let journalPath: string | undefined
  let failures = 0
  const seed = budget.seed ?? Date.now() % 2 ** 31
  const replayPath = process.env.FC_REPLAY_PATH
  const commands = fc.commands([stepArbitrary.map((step) => new StepCommand(step, recorder))], {
    maxCommands: budget.maxCommands,
    size: 'max',
    // fast-check prints it beside the counterexample: with FC_SEED and FC_PATH it replays that run.
    ...(replayPath ? { replayPath } : {}),
  })
  const property = fc.asyncProperty(commands, async (cmds) => {
    recorder.ran = []
    progress.run()
    progress.log(
      `${progress.where(0)}: seed ${seed}, ` +
        (failures > 0
          ? `shrinking (${failures} failing so far, the smallest ${lastFailing?.length} steps)`
          : 'searching'),
    )
    const started: ModelSystem[] = []
    const setup = setupFor(server, options, started, progress)
    let failure: unknown
    try {
      await fc.asyncModelRun(async () => {
        const t0 = Date.now()
        const s = await setup()
        setupMs += Date.now() - t0
        return s
      }, cmds)
    } catch (error) {
      failure = error
    }
    // A hung engine is stopped within the deadline too; failing to stop is a failure of the run.
    const stopFailure = await stopAll(started, progress, failure !== undefined)
    failure ??= stopFailure
    for (const step of recorder.ran) tally[step.op] = (tally[step.op] ?? 0) + 1
    if (failure === undefined) {
      progress.log(`run passed (${recorder.ran.length} steps)`)
      return
    }
    // Shrinking ends on the smallest failing list: the last failure seen is the counterexample.
    // Written at once (and rewritten as it shrinks), so an interrupted shrink keeps the smallest so far.
    failures++
    lastFailing = [...recorder.ran]
    journalPath = writeJournal(lastFailing, `model-based suite failure (shrinking), seed ${seed}`, journalPath)
    const why = failure instanceof Error ? failure.message.split('\n').slice(0, 3).join(' | ') : String(failure)
    // What the engines said during the failing run (a race that does not replay shows only here).
    const said = started.flatMap((s) => s.logs)
    writeFileSync(`${journalPath}.log`, `${said.join('\n')}\n`)
    console.error(
      `model-based suite: a run failed (${lastFailing.length} steps: ${why}); shrinking — journal so far: ` +
        `${journalPath}; the engines' ${said.length} log lines in ${journalPath}.log, the last ones:\n  ` +
        `${said.slice(-30).join('\n  ')}`,
    )
    throw failure
  })
  const result = await fc.check(property, {
    numRuns: budget.numRuns,
    seed,
    endOnFailure: budget.endOnFailure ?? false,
    ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
  })
  if (!result.failed)
    return {
      failed: false,
      seed,
      numRuns: result.numRuns,
      report: undefined,
      steps: undefined,
      journalPath: undefined,
      error: undefined,
      tally,
      ms: { setup: setupMs, ...recorder.ms },
    }
  const steps = lastFailing ?? []
  journalPath = writeJournal(
    steps,
    `model-based suite failure, seed ${seed}, path ${result.counterexamplePath ?? '?'}`,
    journalPath,
  )
  return {
    failed: true,
    seed,
    numRuns: result.numRuns,
    report: fc.defaultReportMessage(result) ?? undefined,
    steps,
    journalPath,
    error: result.errorInstance,
    tally,
    ms: { setup: setupMs, ...recorder.ms },
  }
}

/** The journal lines and how to replay them, for a failure message. @example console.error(describeFailure(outcome)) */
export const describeFailure = (outcome: ModelOutcome): string =>
  [
    `model-based suite failed (seed ${outcome.seed}); shrunk steps (${outcome.steps?.length ?? 0}): ` +
      `${(outcome.steps ?? []).map(stepText).join(' → ')}`,
    `journal: ${outcome.journalPath}`,
    readFileSync(outcome.journalPath!, 'utf8').trimEnd(),
    `replay: MODEL_REPLAY=${outcome.journalPath} npx vitest run --project browser test/model/engine.test.ts`,
    `error: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`,
  ].join('\n')
