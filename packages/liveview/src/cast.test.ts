import { MEMORY_FRAMES_IN_FLIGHT, MemoryRuntime, type Screencast, type ScreencastOptions } from '@errands/runtime'
import { Effect } from 'effect'
import { describe, expect, it } from 'vitest'
import { LiveCast, type LiveFrame } from './cast.ts'

const label = { reason: 'task', lentSites: [] } as const

/** A memory errand on one page, and a live cast of its tab that has not started yet. */
const watched = () => {
  const memory = MemoryRuntime.make()
  const id = Effect.runSync(
    memory.openContext({ errandId: 'e1', label, tabs: [{ url: 'http://shop.test/', active: true }] }),
  )
  const frames: Array<LiveFrame> = []
  const cast = LiveCast.create((frame) => frames.push(frame))
  const open = (options: ScreencastOptions) => Effect.runPromise(memory.screencast(id, 't1', options))
  return { memory, id, frames, cast, open }
}

describe('LiveCast over the runtime screencast (V1: a slow viewer slows the stream)', () => {
  it('sends nothing more while the viewer owes acks, and resumes when it acks', async () => {
    const { memory, id, frames, cast, open } = watched()
    await cast.start(open)
    for (let i = 0; i < 10; i++) memory.paint(id)
    expect(frames.map((f) => f.seq)).toEqual([1, 2, 3].slice(0, MEMORY_FRAMES_IN_FLIGHT))
    cast.ack(frames.at(-1)!.seq)
    memory.paint(id)
    expect(frames.length).toBe(MEMORY_FRAMES_IN_FLIGHT + 1)
    expect(cast.running).toBe(true)
    await cast.stop()
  })

  it("keeps an ack that overtakes the start's answer and passes it on once started", async () => {
    const { memory, id, frames, cast } = watched()
    // The first frames come (and are drawn and acked) before the start has answered.
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    const starting = cast.start(async (options) => {
      const screencast: Screencast = await Effect.runPromise(memory.screencast(id, 't1', options))
      for (let i = 0; i < 5; i++) memory.paint(id)
      cast.ack(frames.at(-1)!.seq)
      await held
      return screencast
    })
    release()
    await starting
    expect(memory.paint(id)).toBe(1)
    expect(frames.length).toBe(MEMORY_FRAMES_IN_FLIGHT + 1)
    await cast.stop()
  })

  it('a stop while it starts stops the stream once there; no frame after stop, and none left running', async () => {
    const { memory, id, frames, cast, open } = watched()
    const starting = cast.start(open)
    const stopping = cast.stop()
    await starting
    await stopping
    expect(memory.paint(id)).toBe(0)
    expect(frames).toEqual([])
    expect(memory.screencasts.running()).toBe(0)
    await cast.stop() // idempotent
    expect(cast.running).toBe(false)
  })
})
