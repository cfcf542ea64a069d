/**
 * C2: a parked errand comes back as it was. A task status that parks it (`interrupted`) while an agent's verb is in
 * flight parks it when the verb ends, so the sealed record holds what the verb did — which the agent was told.
 * Parked at once, it was sealed in the middle of the verb, and the resume brought the tab back where it had been
 * before the verb (the soak's `read-other-tab`, docs/reliability.md). On real Chromium, with the supervisor a host
 * runs; a driver held open stands for the verb in flight, as every face's verb holds one (`Sessions.use`).
 */
import { Effect, Fiber } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { startEngine, type Engine } from './harness.ts'

let site: Site
let engine: Engine

beforeAll(async () => {
  ;[site] = (await serveSites(1)) as [Site]
  engine = await startEngine({ maxErrands: 4, snapshotDebounceMs: 300 })
})
afterAll(async () => {
  await engine?.stop()
  await closeSites([site])
})

const urlsOf = async (contextId: string) => (await engine.run(engine.chromium.tabs(contextId))).map((t) => t.url)

describe("a task's park while a verb is in flight (C2)", () => {
  it('waits for the verb: the errand parks when it ends, and resumes with what the verb did', async () => {
    const { supervisor, chromium, run, fork } = engine
    const id = 'park-in-flight'
    const { contextId } = await run(supervisor.open({ id, kind: 'task' }))
    await run(chromium.pages.go(contextId, site.url('/title?t=before'), 30_000))
    // A verb starts: it drives the errand.
    const driving = await run(supervisor.drive(id))
    // The task is interrupted meanwhile. The event is sent before `fork` returns; the answer waits for the park.
    const parked = fork(supervisor.taskChanged(id, 'interrupted'))
    expect((await run(supervisor.view(id))).state).toBe('active')
    // The verb goes on, on the same context, and ends.
    await run(chromium.pages.go(driving.contextId, site.url('/title?t=after'), 30_000))
    expect(await urlsOf(driving.contextId)).toEqual([site.url('/title?t=after')])
    await run(supervisor.undrive(id))
    expect((await run(Fiber.join(parked))).state).toBe('parked')
    // The record is what the agent was told: the tab where the verb left it.
    const resumed = await run(supervisor.resume(id))
    expect(await urlsOf(resumed.contextId)).toEqual([site.url('/title?t=after')])
    await run(supervisor.release(id))
  })

  it('is called off when the task runs again before the verb ends: nothing is parked', async () => {
    const { supervisor, chromium, run, fork } = engine
    const id = 'park-called-off'
    const { contextId } = await run(supervisor.open({ id, kind: 'task' }))
    await run(chromium.pages.go(contextId, site.url('/title?t=kept'), 30_000))
    await run(supervisor.drive(id))
    const interrupted = fork(supervisor.taskChanged(id, 'interrupted'))
    expect((await run(supervisor.taskChanged(id, 'running'))).state).toBe('active')
    expect((await run(Fiber.join(interrupted))).state).toBe('active')
    await run(supervisor.undrive(id))
    const view = await run(supervisor.view(id))
    expect([view.state, view.contextId]).toEqual(['active', contextId])
    await run(Effect.asVoid(supervisor.release(id)))
  })
})
