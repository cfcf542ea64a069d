/**
 * T3 + T4, model-based, on real Chromium: random step lists (open, browse, set cookies and
 * localStorage, tabs, Allow, revoke, sign out everywhere, park, resume, restart, SIGKILL of the
 * errands' browser, parking by the cap, close) run on the whole engine, and after every step what
 * Chromium and the sealed store really hold is compared with a plain model of who should see
 * what. See docs/model-suite.md for the soak and replay modes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveNamedSites, type NamedSites } from '../lending/server.ts'
import { CI_BUDGET, checkModel, DEFAULT_SEED, describeFailure, replayJournal } from './runner.ts'
import { stepText } from './steps.ts'

let server: NamedSites
beforeAll(async () => {
  server = await serveNamedSites()
})
afterAll(async () => {
  await server?.close()
})

const env = process.env
const replay = env.MODEL_REPLAY
const soak = env.ERRANDS_SOAK === '1'
const budget = soak
  ? {
      numRuns: Number(env.SOAK_RUNS ?? 40),
      maxCommands: Number(env.SOAK_STEPS ?? 60),
      seed: env.FC_SEED ? Number(env.FC_SEED) : undefined,
    }
  : { ...CI_BUDGET, seed: Number(env.FC_SEED ?? DEFAULT_SEED) }

describe('model-based suite on real Chromium (T3, T4)', () => {
  if (replay !== undefined) {
    it(
      `replays the journal ${replay}`,
      async () => {
        const ran = await replayJournal(server, replay)
        console.log(`replayed ${ran.length} steps without a violation: ${ran.map(stepText).join(' → ')}`)
      },
      30 * 60_000,
    )
    return
  }

  it(
    `no errand ever sees another's cookies, storage or tabs; revoked sites are gone everywhere; the cap holds; park, ` +
      `resume, crash and restart lose nothing newer than the last snapshot; closed errands leave nothing ` +
      `(${soak ? 'soak' : 'CI budget'})`,
    async () => {
      const outcome = await checkModel(server, budget)
      if (outcome.failed) {
        console.error(describeFailure(outcome))
        expect.fail(`${outcome.report ?? 'the property failed'}\n\n${describeFailure(outcome)}`)
      }
      console.log(
        `model-based suite: ${outcome.numRuns} runs of up to ${budget.maxCommands} steps, seed ${outcome.seed}; ` +
          `steps run: ${JSON.stringify(outcome.tally)}; ms: ${JSON.stringify(outcome.ms)}`,
      )
      expect(outcome.numRuns).toBe(budget.numRuns)
    },
    soak ? 24 * 3_600_000 : 10 * 60_000,
  )
})
