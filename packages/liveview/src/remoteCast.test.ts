import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { LiveFrame } from './cast.ts'
import { RemoteCast, type OwnerFrame } from './remoteCast.ts'

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

const frame = (seq: number): OwnerFrame => ({ data: new Uint8Array([0xff, 0xd8, seq]), seq, width: 1280, height: 720 })

describe('the stream of an errand held by another host (#24, V1)', () => {
  it(
    'asks for the next frame only after the viewer acked the last, skips a frame already shown, and stops for ' +
      'good',
    async () => {
      let owner = 1
      let asked = 0
      const fetchFrame = async () => (asked++, frame(owner))
      const sent: Array<LiveFrame> = []
      const cast = new RemoteCast(fetchFrame, (f) => sent.push(f), 250)
      cast.start()
      await vi.advanceTimersByTimeAsync(0)
      expect(sent.map((f) => f.seq)).toEqual([1])
      expect(Buffer.from(sent[0]!.data, 'base64')[2]).toBe(1)
      // No ack yet: however long it waits, it asks nothing more (a slow viewer slows the stream).
      await vi.advanceTimersByTimeAsync(5_000)
      expect(asked).toBe(1)
      cast.ack(1)
      // The owner has painted nothing new: asked again, nothing sent, asked again later.
      await vi.advanceTimersByTimeAsync(250)
      expect(asked).toBe(2)
      expect(sent).toHaveLength(1)
      owner = 2
      await vi.advanceTimersByTimeAsync(250)
      expect(sent.map((f) => f.seq)).toEqual([1, 2])
      expect(Buffer.from(sent[1]!.data, 'base64')[2]).toBe(2)
      await cast.stop()
      cast.ack(2)
      owner = 3
      await vi.advanceTimersByTimeAsync(5_000)
      expect(sent).toHaveLength(2)
      expect(cast.running).toBe(false)
    },
  )

  it('an owner that cannot answer now (moving, parked) is asked again later, and the viewer owes nothing', async () => {
    let fail = true
    const sent: Array<LiveFrame> = []
    const cast = new RemoteCast(
      async () => {
        if (fail) throw new Error('parked')
        return frame(7)
      },
      (f) => sent.push(f),
      250,
    )
    cast.start()
    await vi.advanceTimersByTimeAsync(1_000)
    expect(sent).toEqual([])
    fail = false
    await vi.advanceTimersByTimeAsync(250)
    expect(sent.map((f) => f.seq)).toEqual([1])
    await cast.stop()
  })
})
