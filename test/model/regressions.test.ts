/**
 * Bugs the model-based suite found, kept as the exact step lists it found them with, on real
 * Chromium. Each names the issue it guards.
 */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { serveNamedSites, type NamedSites } from '../lending/server.ts'
import { runSteps } from './runner.ts'
import type { Step } from './steps.ts'

let server: NamedSites
beforeAll(async () => {
  server = await serveNamedSites()
})
afterAll(async () => {
  await server?.close()
})

describe('regressions found by the model-based suite', () => {
  it(
    'issue #9: a crashed errand parked at shutdown does not seal a site revoked after its last snapshot ' + '(L5)',
    async () => {
      // Before the fix, lending's stale-snapshot guard stopped before the supervisor's shutdown
      // parked the crashed errand from a snapshot taken before the revocation, so its sealed record
      // held shop.example's sign-in again (and a resume brought it back).
      const steps: Step[] = [
        { op: 'open', id: 't0' }, // seeded with shop.example (always allowed)
        { op: 'visit', id: 't0', tab: 0, site: 'shop.example' }, // a snapshot holds it
        { op: 'open', id: 't1' },
        { op: 'crash' },
        { op: 'revoke', site: 'shop.example' },
        { op: 'restart' },
        { op: 'resume', id: 't0' },
        { op: 'audit' },
      ]
      await runSteps(server, steps)
    },
  )

  it(
    'issue #9 soak, seed 9001: a heal from a snapshot older than a revocation does not wipe what the errand writes ' +
      'at once (L5)',
    async () => {
      // Before the fix the heal handed t2 back from a snapshot taken before alice.github.io was
      // revoked and lending cleaned the site out of the healed context in the background — after
      // this very step had written alice.github.io's localStorage, which it wiped.
      const steps: Step[] = [
        { op: 'setCookie', id: 't3', tab: 0, site: 'shop.example' },
        { op: 'setStorage', id: 't2', tab: 0, site: 'shop.example' },
        { op: 'setCookie', id: 't2', tab: 4, site: 'bob.github.io' },
        { op: 'revoke', site: 'alice.github.io' }, // marks t2's last snapshot stale for alice.github.io
        { op: 'crash' },
        { op: 'setStorage', id: 't2', tab: 2, site: 'alice.github.io' }, // heals t2, writes alice.github.io at once
      ]
      await runSteps(server, steps)
    },
  )
})
