import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runSoak, type SoakResult } from '../../soak/run.ts'
import { sealKillLoop } from '../../soak/sealkill.ts'

/*
 * Issue #15, the short soak CI runs (a fixed seed, one minute of chaos): the real host as a child
 * process, 10 sessions against a cap of 3 (parking to make room all the time), a chaos loop that
 * kills renderers, SIGKILLs the errands' Chromium and SIGKILLs the host while it seals (then
 * restarts it), and fills the store's disk where a tmpfs can be mounted. Everything it judges is
 * seen on the wire (the fixture sites' Cookie headers) or in the OS (/proc, the temp dir, CDP),
 * never in the engine's bookkeeping. Then a few kill -9s of the host inside a seal write, each
 * followed by a restart that must bring every acknowledged park back exactly.
 *
 * The long run is `npm run soak -- --minutes 60` (docs/reliability.md). SOAK_SEED replays a run.
 */
const seed = Number(process.env.SOAK_SEED ?? 15)
const out = mkdtempSync(join(tmpdir(), 'errands-soak-ci-'))
let result: SoakResult | undefined
let passed = 0

afterAll(() => {
  // A failing run keeps its journal and report, and says where they are.
  if (passed === 2) rmSync(out, { recursive: true, force: true })
  else console.warn(`soak: seed ${seed}; journal and report kept in ${out}`)
})

describe('the soak, short and seeded (issue #15)', () => {
  it('nothing leaks, nothing is lost, no cookie reaches the wrong session or outlives its revocation, under kills of ' +
    'renderers, the browser and the host', async () => {
    result = await runSoak({
      seed,
      sessions: 10,
      cap: 3,
      minutes: 1,
      chaosEveryMs: 7_000,
      quietEveryMs: 30_000,
      healRounds: 1,
      out,
      // The work asserted below, done however loaded the machine is: the run goes on past its
      // minute until it is (at most three), instead of doing less of it and failing (docs/testing.md).
      atLeast: {
        counts: {
          parksAcked: 1,
          resumesChecked: 1,
          lends: 1,
          revokes: 1,
          hostKills: 1,
          kills: 1,
          healChecks: 1,
          wireRequests: 21,
        },
        maxMinutes: 3,
      },
    })
    const s = result.stats
    type Violation = SoakResult['violations'][number]
    const shown = (v: Violation) => `${v.kind} ${v.session}: ${v.detail}`
    // Every violation fails the run: a Chromium process above the first quiet period's count
    // among them (it was Chromium's own spare renderer, now switched off: switches.test.ts), and an
    // acknowledged park that does not come back exactly (reopened tabs' reloads no longer write
    // over the record, and a park right after chaos is no longer taken as exact).
    // Every violation carries what was seen and where: show them all at once.
    expect(result.violations.map(shown)).toEqual([])
    // The run did the work it claims (else the zeros above would prove nothing).
    expect(s.parksAcked).toBeGreaterThan(0)
    expect(s.resumesExact).toBeGreaterThan(0)
    expect(s.resumesExact).toBe(s.resumesChecked)
    expect(s.lends).toBeGreaterThan(0)
    expect(s.revokes).toBeGreaterThan(0)
    // A loaded machine makes fewer requests in its minute; some dozens prove the wire was watched.
    expect(s.wireRequests).toBeGreaterThan(20)
    expect(s.hostKills).toBeGreaterThan(0)
    expect(s.rendererKills + s.browserKills).toBeGreaterThan(0)
    expect(s.healChecks).toBeGreaterThan(0)
    expect(s.quietPeriods).toBeGreaterThanOrEqual(2)
    expect(Math.max(...result.samples.map((x) => x.contexts ?? 0))).toBeGreaterThan(0)
    // Heal after a SIGKILL of the errands' browser with 10 live errands (H2): all ten come back.
    // How fast is measured by the long run (docs/reliability.md), never asserted in a timed test.
    expect(result.heal!.failed).toBe(0)
    expect(result.heal!.times).toHaveLength(10)
    passed++
  }, 480_000)

  it('kill -9 of the host inside a seal write: every acknowledged park restores exactly, no torn or mixed record is ' +
    'ever accepted', async () => {
    const r = await sealKillLoop({ kills: 2, minutes: 3, out: join(out, 'seal'), seed })
    expect(r.violations).toEqual([])
    expect(r.killsDuringSeal).toBe(2)
    expect(r.ackedRestoredExactly).toBe(r.cycles)
    expect(r.killedCameBackOld + r.killedCameBackNew).toBe(r.cycles)
    passed++
  }, 240_000)
})
