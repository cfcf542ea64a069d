/**
 * Steps as fast-check commands: each runs on the real engine, moves the model the same way,
 * then checks every invariant (`verify`). `StepCommand` wraps one {@link Step}, so a command list
 * is a journal and a journal is a command list.
 *
 * @example
 * await fc.asyncModelRun(setup, steps.map((s) => new StepCommand(s, log)))
 */
import { Lending } from '@errands/lending'
import { Effect } from 'effect'
import { isDeepStrictEqual } from 'node:util'
import { eventually } from '../fixtures/processes.ts'
import type fc from 'fast-check'
import { verify, InvariantBroken } from './invariants.ts'
import type { Progress } from './progress.ts'
import {
  allowSite,
  closeErrand,
  crashTo,
  errandOf,
  freshValue,
  idsIn,
  isLive,
  openErrand,
  put,
  restartAll,
  revokeSite,
  signOutAll,
  touch,
  type Jar,
  type Model,
} from './model.ts'
import { SITES, stepText, type Step } from './steps.ts'
import { heldIn, SystemFailure, type ModelSystem } from './system.ts'

let probes = 0

/** A fresh URL on `site` for errand `id`: `o=` names the errand, `n=` makes it unique. */
const pageUrl = (sys: ModelSystem, m: Model, site: string, id: string) =>
  sys.server.url(site, `/page?o=${id}&n=${++m.seq}`)

const task = (id: string) => ({ id, kind: 'task' as const })

/**
 * Probes every fixture site from every open errand on the wire: a page of the errand loads the
 * site's `/echo`, and the `Cookie` header the server received and the localStorage the page sees
 * must be exactly the model's — this also reads localStorage a resume restored but no tab had
 * shown yet. The probe tab is closed again.
 */
const audit = async (sys: ModelSystem, m: Model): Promise<void> => {
  const problems: string[] = []
  for (const id of idsIn(m, 'open')) {
    const live = sys.contextOf(id)
    if (live === undefined) continue // verify() reports it
    const e = errandOf(m, id)
    for (const site of SITES) {
      const probe = `audit-${++probes}`
      // Through the runtime, never `context.newPage()` beside it: the runtime keeps a context's
      // new pages and storage reads (a snapshot may be taking one now) one at a time, and a new
      // page racing Playwright's storage read turns its hidden storage page into a visible one
      // that closes under the checks (see test/runtime-chromium/storageReads.test.ts).
      const tab = await sys.run(
        sys.chromium.openTab(live.contextId, sys.server.url(site, `/echo?probe=${probe}&o=${id}`)),
      )
      const page = sys.chromium.pageOf(live.contextId, tab.id)
      if (page === undefined) throw new SystemFailure(`${id}'s probe tab ${tab.id} has no page`)
      try {
        await page.waitForLoadState('load')
        const header = sys.server.cookieAt(probe) ?? ''
        const cookies: Jar = Object.fromEntries(
          header
            .split(';')
            .map((p) => p.trim())
            .filter((p) => p !== '')
            .map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]),
        )
        const storage: Jar = await page.evaluate(() =>
          Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage.getItem(k) ?? ''])),
        )
        if (!isDeepStrictEqual(cookies, e.cookies[site] ?? {}))
          problems.push(
            `${id} sent Cookie ${JSON.stringify(cookies)} to ${site}; model ${JSON.stringify(e.cookies[site] ?? {})}`,
          )
        if (!isDeepStrictEqual(storage, e.storage[site] ?? {}))
          problems.push(
            `${id}'s page of ${site} sees localStorage ${JSON.stringify(storage)}; model ` +
              `${JSON.stringify(e.storage[site] ?? {})}`,
          )
      } finally {
        await sys.run(sys.chromium.closeTab(live.contextId, tab.id))
      }
    }
  }
  if (problems.length > 0) throw new InvariantBroken(problems)
}

/**
 * Runs one step on the real system and on the model. Throws when the real system refuses
 * something the model allows.
 *
 * @example
 * await runStep({ op: 'open', id: 't0' }, model, sys)
 */
export const runStep = async (step: Step, m: Model, sys: ModelSystem): Promise<void> => {
  const { supervisor, lending } = sys
  if (opensFirst(step) && !isLive(m, step.id)) {
    // A step inside an errand that does not exist starts it first, as a new task would.
    await sys.run(supervisor.open(task(step.id)))
    openErrand(m, step.id)
  }
  switch (step.op) {
    case 'open':
    case 'resume': {
      await sys.run(step.op === 'open' ? supervisor.open(task(step.id)) : supervisor.resume(step.id))
      openErrand(m, step.id)
      return
    }
    case 'park': {
      await sys.run(supervisor.taskChanged(step.id, 'interrupted'))
      const e = errandOf(m, step.id)
      if (e.state === 'open' || e.state === 'crashed') e.state = 'parked'
      return
    }
    case 'close': {
      await sys.run(
        step.how === 'done' ? Effect.asVoid(supervisor.taskChanged(step.id, 'done')) : supervisor.release(step.id),
      )
      closeErrand(m, step.id)
      return
    }
    case 'visit':
    case 'setCookie':
    case 'setStorage': {
      openErrand(m, step.id)
      const e = errandOf(m, step.id)
      const index = step.tab % e.tabs.length
      const from = e.tabs[index]!
      const url = pageUrl(sys, m, step.site, step.id)
      const value = freshValue(m, step.id)
      await sys.inTab(step.id, from, url, async (page) => {
        if (step.op === 'setCookie') {
          await page.evaluate((v) => void (document.cookie = `k=${v}; path=/; max-age=3600`), value)
          // The checks after this step read the browser's cookie store, which a page's
          // document.cookie write reaches over its own channel: wait until the store holds it, or
          // give up after a while and let the checks judge (a cookie never stored still fails).
          // (A guard against one unexplained CI failure; 600 writes read back at once, idle and
          // under load, never missed.)
          await eventually(
            async () => (await page.context().cookies(url)).some((c) => c.name === 'k' && c.value === value),
            5_000,
          )
        }
        if (step.op === 'setStorage') await page.evaluate((v) => localStorage.setItem('k', v), value)
      })
      touch(m, step.id)
      e.tabs[index] = url
      if (step.op === 'setCookie') put(e.cookies, step.site, 'k', value)
      if (step.op === 'setStorage') put(e.storage, step.site, 'k', value)
      return
    }
    case 'openTab': {
      openErrand(m, step.id)
      const url = pageUrl(sys, m, step.site, step.id)
      await sys.openTab(step.id, url)
      touch(m, step.id)
      errandOf(m, step.id).tabs.push(url)
      return
    }
    case 'closeTab': {
      openErrand(m, step.id)
      const e = errandOf(m, step.id)
      const index = step.tab % e.tabs.length
      await sys.closeTab(step.id, e.tabs[index]!)
      touch(m, step.id)
      e.tabs.splice(index, 1)
      return
    }
    case 'allow': {
      await sys.run(Effect.flatMap(Lending, (l) => l.allow(step.id, step.site)))
      allowSite(m, step.id, step.site)
      return
    }
    case 'revoke': {
      const ids = Object.keys(m.errands).filter((id) => isLive(m, id))
      await sys.takeBack(ids, new Set([step.site]), lending.revoke(step.site))
      revokeSite(m, step.site)
      return
    }
    case 'signOut': {
      const ids = Object.keys(m.errands).filter((id) => isLive(m, id))
      await sys.takeBack(ids, 'all', lending.signOutEverywhere)
      signOutAll(m)
      return
    }
    case 'crash': {
      const crashed = await sys.crash(idsIn(m, 'open'))
      const views = await sys.run(supervisor.list)
      for (const id of crashed) {
        const snapshot = supervisor.lastSnapshot(id)
        const state = views.find((v) => v.conversationId === id)?.state === 'parked' ? 'parked' : 'crashed'
        crashTo(m, id, heldIn(snapshot), sys.staleReach(snapshot), state)
      }
      return
    }
    case 'restart': {
      // What a crashed errand is parked from at shutdown is its last snapshot: the model holds it already.
      await sys.restart()
      restartAll(m)
      return
    }
    case 'audit':
      await audit(sys, m)
      return
  }
}

/** Steps inside an errand: on a closed one they open it first. */
const opensFirst = (
  step: Step,
): step is Extract<Step, { op: 'visit' | 'setCookie' | 'setStorage' | 'openTab' | 'allow' }> =>
  step.op === 'visit' ||
  step.op === 'setCookie' ||
  step.op === 'setStorage' ||
  step.op === 'openTab' ||
  step.op === 'allow'

/**
 * Whether a step can run in this model state (fast-check skips the ones that cannot). @example canRun(m, { op: 'crash'
 * })
 */
export const canRun = (m: Model, step: Step): boolean => {
  switch (step.op) {
    case 'park':
    case 'resume':
    case 'close':
      return isLive(m, step.id)
    case 'closeTab':
      return isLive(m, step.id) && errandOf(m, step.id).tabs.length > 1
    default:
      return true
  }
}

/**
 * Where the steps that actually ran go (fast-check skips steps whose `check` fails), so a failing
 * run's steps can be written out as a journal. Reset at the start of each run.
 *
 * @example
 * const recorder: Recorder = { ran: [] }
 */
export interface Recorder {
  ran: Step[]
  /** Milliseconds spent per kind of step (the step, then its checks), over every run. */
  readonly ms?: Record<string, { step: number; verify: number }>
  /** Progress lines (`MODEL_VERBOSE=1`) and the per-step deadline; without it a step may wait forever. */
  readonly progress?: Progress
}

/**
 * One step as a fast-check command.
 *
 * @example
 * new StepCommand({ op: 'open', id: 't0' }, recorder)
 */
export class StepCommand implements fc.AsyncCommand<Model, ModelSystem, false> {
  constructor(
    readonly step: Step,
    private readonly recorder: Recorder,
  ) {}

  check(m: Readonly<Model>): boolean {
    return canRun(m as Model, this.step)
  }

  async run(m: Model, sys: ModelSystem): Promise<void> {
    this.recorder.ran.push(this.step)
    const progress = this.recorder.progress
    const what =
      progress === undefined ? stepText(this.step) : `${progress.where(progress.step())}: ${stepText(this.step)}`
    const within = <A>(phase: 'step' | 'checks', work: Promise<A>) =>
      progress === undefined ? work : progress.within(what, phase, work)
    const t0 = Date.now()
    try {
      await within('step', runStep(this.step, m, sys))
    } catch (error) {
      if (error instanceof InvariantBroken || error instanceof SystemFailure) throw error
      throw new SystemFailure(
        `${stepText(this.step)} failed: ` +
          `${error instanceof Error ? `${error.name}: ${error.message}` : JSON.stringify(error)}`,
      )
    }
    const t1 = Date.now()
    await within('checks', verify(sys, m))
    progress?.log(`${what}: ok (step ${t1 - t0} ms, checks ${Date.now() - t1} ms)`)
    const spent =
      this.recorder.ms === undefined ? undefined : (this.recorder.ms[this.step.op] ??= { step: 0, verify: 0 })
    if (spent !== undefined) {
      spent.step += t1 - t0
      spent.verify += Date.now() - t1
    }
  }

  toString(): string {
    return stepText(this.step)
  }
}
