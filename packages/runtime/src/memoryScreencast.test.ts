import { Effect, Exit } from 'effect'
import { describe, expect, it } from 'vitest'
import { MEMORY_FRAMES_IN_FLIGHT } from './memoryScreencast.ts'
import { MemoryRuntime } from './memory.ts'
import type { ScreencastFrame, ScreencastOptions } from './screencast.ts'

const label = { reason: 'task', lentSites: [] } as const

/** A memory runtime with one errand on one page, and a screencast of its tab. */
const casting = (ack: ScreencastOptions['ack']) => {
  const memory = MemoryRuntime.make()
  const id = Effect.runSync(
    memory.openContext({ errandId: 'e1', label, tabs: [{ url: 'http://shop.test/', active: true }] }),
  )
  const frames: Array<ScreencastFrame> = []
  let stops = 0
  const cast = Effect.runSync(
    memory.screencast(id, 't1', { ack, onFrame: (f) => frames.push(f), onStop: () => stops++ }),
  )
  return { memory, id, frames, cast, stops: () => stops }
}

describe("MemoryRuntime's screencast (the fake the live view's unit tests stream from)", () => {
  it('sends a frame per paint, numbered from 1, and one per visit of the tab', () => {
    const { memory, id, frames } = casting('auto')
    expect(memory.paint(id, undefined, { width: 800, height: 600 })).toBe(1)
    memory.visit(id, 'http://shop.test/basket')
    expect(frames.map((f) => [f.seq, f.width, f.height])).toEqual([
      [1, 800, 600],
      [2, 1280, 720],
    ])
    expect(atob(frames[0]!.data)).toContain('memory frame 1')
  })

  it('with deferred acks sends nothing more once a few frames wait, until one is acked', () => {
    const { memory, id, frames, cast } = casting('deferred')
    for (let i = 0; i < MEMORY_FRAMES_IN_FLIGHT + 2; i++) memory.paint(id)
    expect(frames.length).toBe(MEMORY_FRAMES_IN_FLIGHT)
    cast.ack(1)
    expect(memory.paint(id)).toBe(1)
    expect(memory.paint(id)).toBe(0)
    // An ack covers every frame before it.
    cast.ack(frames.at(-1)!.seq)
    for (let i = 0; i < 5; i++) memory.paint(id)
    expect(frames.length).toBe(MEMORY_FRAMES_IN_FLIGHT * 2 + 1)
  })

  it('stop is idempotent, tells onStop once and leaves no screencast running', async () => {
    const { memory, id, frames, cast, stops } = casting('auto')
    await cast.stop()
    await cast.stop()
    expect(cast.running).toBe(false)
    expect(stops()).toBe(1)
    expect(memory.screencasts.running()).toBe(0)
    expect(memory.paint(id)).toBe(0)
    expect(frames).toEqual([])
  })

  it('stops when its tab or its context closes', () => {
    const tab = casting('auto')
    Effect.runSync(tab.memory.closeTab(tab.id, 't1'))
    expect([tab.cast.running, tab.stops()]).toEqual([false, 1])
    const context = casting('auto')
    Effect.runSync(context.memory.closeContext(context.id))
    expect([context.cast.running, context.stops()]).toEqual([false, 1])
    const crash = casting('auto')
    crash.memory.crashBrowser()
    expect(crash.cast.running).toBe(false)
  })

  it('fails for a tab or context that is not there', () => {
    const { memory, id } = casting('auto')
    const options: ScreencastOptions = { ack: 'auto', onFrame: () => undefined }
    expect(Exit.isFailure(Effect.runSyncExit(memory.screencast(id, 't9', options)))).toBe(true)
    expect(Exit.isFailure(Effect.runSyncExit(memory.screencast('ctx-9', 't1', options)))).toBe(true)
  })
})
