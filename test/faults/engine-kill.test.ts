import { pidsWithEnv } from '@errands/runtime-chromium'

import { appendFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { spawnEngine, type EngineProcess } from '../fixtures/engineProcess.ts'
import { prng } from './prng.ts'

/*
 * Issue #9, fault 1 (S4, E4, E5): kill -9 of the engine process during a park, during the
 * store write of a park (the seal), and during a resume — several times each, at random moments
 * after the operation has started (signalled by the child's own state changes, or by its slow
 * disk announcing a record half written). After each kill a fresh engine on the same data dir must find every
 * errand: readable, resumable, and exactly as last sealed — or, only when the kill hit a park
 * before its new version was complete, the previous version. Never a half record, never a lost
 * errand. FAULT_SEED replays a run.
 */

interface State {
  open: boolean
  tabs: Array<{ url: string; active: boolean }>
  storage: {
    cookies: Array<{ name: string; value: string }>
    origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>
  }
}
type Kind = 'park' | 'seal' | 'resume'

// CI's short, fixed-seed version (issue #28): two kills per operation (the first is certain to
// land inside it, see killDuring). More kills and other seeds: FAULT_KILLS=20 FAULT_SEED=random.
const KILLS = Number(process.env.FAULT_KILLS ?? 2)
const seed = process.env.FAULT_SEED === 'random' ? Date.now() % 1_000_000 : Number(process.env.FAULT_SEED ?? 20261205)
let site: Site
const dirs: string[] = []

beforeAll(async () => {
  ;[site] = (await serveSites(1)) as [Site]
})
afterAll(async () => {
  await closeSites([site])
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** What must come back: tab URLs, cookies and localStorage. */
const comparable = (s: State) => ({
  tabs: s.tabs.filter((t) => t.url !== 'about:blank'),
  cookies: s.storage.cookies.map((c) => `${c.name}=${decodeURIComponent(c.value)}`).sort(),
  local: s.storage.origins.flatMap((o) => o.localStorage.map((i) => `${o.origin} ${i.name}=${i.value}`)).sort(),
})
type Comparable = ReturnType<typeof comparable>

const visit = (engine: EngineProcess, id: string, version: number) =>
  engine.call<State>({
    op: 'visit',
    id,
    url: site.url(`/add?item=${id}${version}`),
    then: site.url(`/title?t=${id}-v${version}`),
    local: `${id}-v${version}`,
  })

const debug = (line: string) => {
  if (process.env.FAULT_DEBUG) appendFileSync(process.env.FAULT_DEBUG, `${new Date().toISOString()} ${line}\n`)
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** How long x's last park and resume took (from its state changes), to aim the kills inside them. */
const timing = (engine: EngineProcess, took: { park: number; resume: number }) => {
  let since = 0
  engine.onEvent((e) => {
    if (e.id !== 'x') return
    if (e.state === 'parking' || e.state === 'resuming') since = performance.now()
    else if (e.state === 'parked' && since > 0) took.park = performance.now() - since
    else if (e.state === 'active' && since > 0) took.resume = performance.now() - since
    if (e.state !== 'parking' && e.state !== 'resuming') since = 0
  })
}

/** How long the seal scenario's slow disk pauses half-way through writing a record. */
const SLOW_WRITE_MS = 800

/**
 * Arms a kill at the moment `kind` names plus a random delay, and resolves once the child is
 * dead. The first kill of a run lands within the first half of the operation's last duration;
 * later ones anywhere up to 1.2× of it — inside or just after. For the seal the moment is a
 * record half on disk (the child's slow disk says so) and the duration its pause. The first kill
 * of a park or a resume is certain to land inside it: `scenario` holds the operation back (its
 * store write, or its tab's page) until the kill — a random delay alone missed whenever this
 * park ran faster than half the last one, or a loaded machine passed the news on late.
 */
const killDuring = (
  engine: EngineProcess,
  kind: Kind,
  random: () => number,
  took: { park: number; resume: number },
  i: number,
) =>
  new Promise<{ delay: number }>((resolve) => {
    const fire = (delay: number) => {
      unsubscribe()
      void sleep(delay)
        .then(() => engine.kill())
        .then(() => resolve({ delay }))
    }
    const unsubscribe = engine.onEvent((e) => {
      const within = (ms: number) => fire(Math.floor(random() * (i === 0 ? 0.5 : 1.2) * ms))
      if (kind === 'seal' && e.event === 'write') within(SLOW_WRITE_MS)
      if (e.id !== 'x') return
      if (kind === 'park' && e.state === 'parking') within(took.park)
      if (kind === 'resume' && e.state === 'resuming') within(took.resume)
    })
  })

const scenario = async (kind: Kind) => {
  const random = prng(seed + kind.length)
  const at = (i: number) => `${kind}, seed ${seed}, kill ${i}`
  const dataDir = mkdtempSync(join(tmpdir(), `errands-fault-${kind}-`))
  dirs.push(dataDir)
  const gate = join(dataDir, 'write-gate') // outside the store; see engine-child.ts
  const env: Record<string, string> =
    kind === 'seal' ? { FAULT_SLOW_WRITE_MS: String(SLOW_WRITE_MS) } : kind === 'park' ? { FAULT_WRITE_GATE: gate } : {}
  let engine = await spawnEngine(dataDir, env)
  const took = { park: 300, resume: 300 }
  timing(engine, took)
  const allowed = new Map<string, Comparable[]>()
  for (const id of ['x', 'y']) {
    await engine.call({ op: 'open', id })
    allowed.set(id, [comparable(await visit(engine, id, 1))])
    await engine.call({ op: 'task', id, status: 'interrupted' })
  }
  const outcomes: string[] = []
  let midWrite = 0
  let interrupted = 0
  try {
    for (let i = 0; i < KILLS; i++) {
      debug(`${at(i)}: resume`)
      const back = comparable(await engine.call<State>({ op: 'resume', id: 'x' }))
      debug(`${at(i)}: visit`)
      expect(allowed.get('x'), `${at(i)}: x came back as something it never was`).toContainEqual(back)
      if (i > 0) outcomes.push(JSON.stringify(back) === JSON.stringify(allowed.get('x')!.at(-1)) ? 'new' : 'previous')
      const next = comparable(await visit(engine, 'x', i + 2))
      expect(next).not.toEqual(back)
      if (kind === 'resume') {
        await engine.call({ op: 'task', id: 'x', status: 'interrupted' })
        allowed.set('x', [next])
      } else {
        // The kill can land before the new version is whole (the previous one stays) or after.
        allowed.set('x', [back, next])
      }
      debug(`${at(i)}: arm`)
      const killed = killDuring(engine, kind, random, took, i)
      // The first kill of a park or a resume must land inside it (or `interrupted` below proves
      // nothing): the park's record stays half-written, the resumed tab's page unanswered, until
      // the kill — which still comes at its random moment of the operation.
      let letGo = () => {}
      if (i === 0 && kind === 'park') {
        writeFileSync(gate, '')
        letGo = () => rmSync(gate, { force: true })
      }
      if (i === 0 && kind === 'resume') letGo = site.hold('/title')
      const trigger = kind === 'resume' ? { op: 'resume', id: 'x' } : { op: 'task', id: 'x', status: 'interrupted' }
      const reply = engine.call(trigger).then(
        () => 'finished',
        () => 'killed',
      )
      await killed
      letGo()
      const tmp = readdirSync(join(dataDir, 'store', 'errands')).filter((n) => n.endsWith('.tmp'))
      if (tmp.length > 0) midWrite++
      debug(`${at(i)}: ${tmp.length} temp file(s) after the kill`)
      // Both count: a kill while the operation runs, and one just after it finished.
      if ((await reply) === 'killed') interrupted++
      debug(`${at(i)}: ${await reply} ${JSON.stringify(took)} ${JSON.stringify(await killed)}`)

      engine = await spawnEngine(dataDir, env)
      debug(`${at(i)}: respawned`)
      timing(engine, took)
      const list = await engine.call<Array<{ conversationId: string; state: string }>>({ op: 'list' })
      // Never a silently lost errand: both are there, set aside, resumable.
      expect(list.map((v) => `${v.conversationId}:${v.state}`).sort(), at(i)).toEqual(['x:parked', 'y:parked'])
      const health = await engine.call<Array<{ text: string }>>({ op: 'health' })
      expect(
        health.filter((m) => m.text.includes('could not be read')),
        at(i),
      ).toEqual([])
      expect(
        readdirSync(join(dataDir, 'store', 'errands')).filter((n) => n.endsWith('.tmp')),
        `${at(i)}: temp files survive a restart`,
      ).toEqual([])
    }
    const last = comparable(await engine.call<State>({ op: 'resume', id: 'x' }))
    expect(allowed.get('x'), `${kind}, seed ${seed}: final`).toContainEqual(last)
    expect(
      comparable(await engine.call<State>({ op: 'resume', id: 'y' })),
      `${kind}, seed ${seed}: the other errand`,
    ).toEqual(allowed.get('y')![0])
    expect(await engine.exit()).toBe(0)
    expect(await eventually(() => pidsWithEnv(`ERRANDS_OWNER=${dataDir}`).length === 0, 10_000)).toBe(true)
  } finally {
    await engine.kill()
    // A failed run leaves the killed engine's browsers behind: ours, so end them by pid.
    for (const pid of pidsWithEnv(`ERRANDS_OWNER=${dataDir}`)) process.kill(pid, 'SIGKILL')
  }
  return { outcomes, midWrite, interrupted }
}

describe('kill -9 of the engine mid-operation (issue #9, S4)', () => {
  it('regression (issue #9): an engine killed after a resume finished still has the errand, as last sealed (the ' +
    'record used to be removed on resume)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'errands-fault-resumed-'))
    dirs.push(dataDir)
    let engine = await spawnEngine(dataDir)
    try {
      await engine.call({ op: 'open', id: 'x' })
      const sealed = comparable(await visit(engine, 'x', 1))
      await engine.call({ op: 'task', id: 'x', status: 'interrupted' })
      expect(comparable(await engine.call<State>({ op: 'resume', id: 'x' }))).toEqual(sealed)
      await visit(engine, 'x', 2) // open, not sealed yet: a kill now loses this, not the errand
      await engine.kill()
      engine = await spawnEngine(dataDir)
      const list = await engine.call<Array<{ conversationId: string; state: string }>>({ op: 'list' })
      expect(list.map((v) => `${v.conversationId}:${v.state}`)).toEqual(['x:parked'])
      expect(comparable(await engine.call<State>({ op: 'resume', id: 'x' }))).toEqual(sealed)
      expect(await engine.exit()).toBe(0)
    } finally {
      await engine.kill()
      for (const pid of pidsWithEnv(`ERRANDS_OWNER=${dataDir}`)) process.kill(pid, 'SIGKILL')
    }
  }, 120_000)

  it(`during a park (${KILLS} kills): every errand comes back as last sealed, or as before when the kill beat the ` +
    `write`, async () => {
    const { outcomes, interrupted } = await scenario('park')
    expect(outcomes.length).toBe(KILLS - 1)
    expect(interrupted, `seed ${seed}: no kill landed inside a park`).toBeGreaterThan(0)
  }, 300_000)

  it(`during the store write of a park (${KILLS} kills): the old version or the new one, never a half ` +
    `record`, async () => {
    const { midWrite } = await scenario('seal')
    // The kills must actually have hit writes in progress, or this proves nothing about them.
    expect(midWrite, `seed ${seed}`).toBeGreaterThan(0)
  }, 300_000)

  it(`during a resume (${KILLS} kills): the errand is still set aside with what was sealed`, async () => {
    const { interrupted } = await scenario('resume')
    expect(interrupted, `seed ${seed}: no kill landed inside a resume`).toBeGreaterThan(0)
  }, 300_000)
})
