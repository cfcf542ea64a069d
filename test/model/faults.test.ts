/**
 * The model-based suite can fail: faults injected around the engine (never into it — see
 * `Fault` in system.ts) are caught by the invariants, found by the property, written as a
 * journal, and the journal replays to the same violation.
 */
import { existsSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveNamedSites, type NamedSites } from '../lending/server.ts'
import { InvariantBroken } from './invariants.ts'
import { checkModel, replayJournal, runSteps } from './runner.ts'
import type { Step } from './steps.ts'

let server: NamedSites
beforeAll(async () => {
  server = await serveNamedSites()
})
afterAll(async () => {
  await server?.close()
})

const failureOf = (run: Promise<unknown>): Promise<unknown> =>
  run.then(
    () => undefined,
    (e: unknown) => e,
  )

const problemsOf = (error: unknown): ReadonlyArray<string> => {
  expect(error).toBeInstanceOf(InvariantBroken)
  return (error as InvariantBroken).problems
}

describe('injected faults are caught (the suite can fail)', () => {
  it(
    "a cookie copied from one errand's context into another's breaks isolation; without the fault the same steps " +
      'pass',
    async () => {
      const steps: Step[] = [
        { op: 'open', id: 't0' },
        { op: 'open', id: 't1' },
        { op: 'setCookie', id: 't0', tab: 0, site: 'bob.github.io' },
      ]
      await runSteps(server, steps)
      const problems = problemsOf(await failureOf(runSteps(server, steps, { fault: 'leak-cookie' })))
      expect(problems).toContain("t1's context holds t0's k@bob.github.io (cookie)")
    },
  )

  it('a revocation that skips a parked errand leaves the site in its sealed record, and that is caught', async () => {
    const steps: Step[] = [
      { op: 'open', id: 't0' },
      { op: 'park', id: 't0' },
      { op: 'revoke', site: 'shop.example' },
    ]
    const problems = problemsOf(await failureOf(runSteps(server, steps, { fault: 'skip-revoke-parked' })))
    expect(problems.some((p) => p.startsWith('t0 parked: record cookies {"shop.example":{"sid":'))).toBe(true)
  })

  it(
    'the property finds a leak by itself, writes the failing steps as a journal, and the journal replays to the ' +
      'same violation',
    async () => {
      const outcome = await checkModel(
        server,
        { numRuns: 10, maxCommands: 12, seed: 3, endOnFailure: true },
        { fault: 'leak-cookie' },
      )
      try {
        expect(outcome.failed).toBe(true)
        expect(outcome.journalPath !== undefined && existsSync(outcome.journalPath)).toBe(true)
        expect(outcome.steps?.some((s) => s.op === 'setCookie')).toBe(true)
        const leak = /^(t\d)'s context holds (t\d)'s k@/
        expect(problemsOf(outcome.error).some((p) => leak.test(p))).toBe(true)
        const replayed = problemsOf(
          await failureOf(replayJournal(server, outcome.journalPath!, { fault: 'leak-cookie' })),
        )
        // Same leaks (the person's sign-in secrets differ between runs; the errands' values do not).
        expect(replayed.filter((p) => leak.test(p))).toEqual(problemsOf(outcome.error).filter((p) => leak.test(p)))
      } finally {
        if (outcome.journalPath !== undefined) rmSync(outcome.journalPath, { force: true })
      }
    },
  )
})
