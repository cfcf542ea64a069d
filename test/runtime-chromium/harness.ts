/**
 * Shared set-up of the real-Chromium tests: a runtime on a temp data dir, with its log lines and
 * events collected, and a one-liner to run its effects.
 *
 * @example
 * const h = await startRuntime({ policy })
 * const id = await h.run(h.runtime.openContext(spec('e1')))
 * await h.stop()
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { GuardPolicy } from '@errands/guard'
import type { OpenContextSpec, RuntimeEvent } from '@errands/runtime'
import { ChromiumRuntime, type ChromiumRuntimeOptions } from '@errands/runtime-chromium'
import { Effect } from 'effect'

/** A running runtime and what it said. @example h.logs.filter((l) => l.startsWith('guard:')) */
export interface Harness {
  readonly runtime: ChromiumRuntime
  readonly dataDir: string
  readonly logs: Array<string>
  readonly events: Array<RuntimeEvent>
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly stop: () => Promise<void>
}

/**
 * Starts a `ChromiumRuntime` on a fresh temp data dir.
 *
 * @example
 * const h = await startRuntime()
 */
export const startRuntime = async (
  options: { readonly policy?: GuardPolicy; readonly extra?: Partial<ChromiumRuntimeOptions> } = {},
): Promise<Harness> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'errands-test-'))
  const logs: Array<string> = []
  const events: Array<RuntimeEvent> = []
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
  const runtime = await run(
    ChromiumRuntime.make({ dataDir, policy: options.policy, log: (line) => logs.push(line), ...options.extra }),
  )
  await run(runtime.subscribe((e) => events.push(e)))
  return {
    runtime,
    dataDir,
    logs,
    events,
    run,
    stop: async () => {
      await run(runtime.shutdown)
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * An `OpenContextSpec` for a task errand.
 *
 * @example
 * await h.run(h.runtime.openContext(spec('e1', { tabs: [{ url, active: true }] })))
 */
export const spec = (errandId: string, extra: Partial<OpenContextSpec> = {}): OpenContextSpec => ({
  errandId,
  label: { reason: 'task', lentSites: [] },
  ...extra,
})

/**
 * Runs an effect and returns its failure (or throws when it succeeded).
 *
 * @example
 * expect((await failureOf(h.runtime.tabs('nope')))._tag).toBe('ContextNotFound')
 */
export const failureOf = async <A, E>(effect: Effect.Effect<A, E>): Promise<E> =>
  Effect.runPromise(Effect.flip(effect)) as Promise<E>

/**
 * Polls until the check holds (or times out, returning false); the shared `eventually`. @example await until(() =>
 * h.events.length > 0)
 */
export { eventually as until } from '../fixtures/processes.ts'
