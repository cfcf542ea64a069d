import { ContextNotFound, RuntimeError, type ScreencastFrame } from '@errands/runtime'
import { PageScreencast, type PageScreencastFrame } from '@errands/runtime-chromium'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { failureOf, spec } from './harness.ts'
import { useRuntimeAndSite } from './shared.ts'

const setup = useRuntimeAndSite()

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** An errand whose one page repaints on every animation frame: a still page sends no frames. */
const animated = async (errandId: string) => {
  const { h, site } = setup()
  const { runtime, run } = h
  const contextId = await run(
    runtime.openContext(spec(errandId, { tabs: [{ url: site.url(`/title?t=${errandId}`), active: true }] })),
  )
  const context = runtime.browserContextOf(contextId)!
  const page = runtime.pageOf(contextId, 't1')!
  await page.evaluate(() => {
    const tick = (n: number) => {
      document.body.textContent = String(n)
      document.body.style.background = n % 2 === 0 ? '#fff' : '#ddd'
      requestAnimationFrame(() => tick(n + 1))
    }
    tick(0)
  })
  return { runtime, run, contextId, context, page, close: () => run(runtime.closeContext(contextId)) }
}

/** The count once it has not changed for `quietMs` (CI is busy: frames in flight may come late). */
const settled = async (count: () => number, quietMs = 1_000, timeoutMs = 15_000): Promise<number> => {
  const end = Date.now() + timeoutMs
  let seen = count()
  let since = Date.now()
  while (Date.now() < end) {
    await sleep(50)
    if (count() !== seen) {
      seen = count()
      since = Date.now()
    } else if (Date.now() - since >= quietMs) return seen
  }
  throw new Error(`still growing after ${timeoutMs} ms (at ${count()})`)
}

/** Listeners on the page's `close` event: the screencast must leave none behind. */
const closeListeners = (page: Page): number =>
  (page as unknown as { listenerCount(event: string): number }).listenerCount('close')

describe('PageScreencast on real Chromium', () => {
  it(
    'hands on frames with their metadata after start; stop ends them, is idempotent and leaves no ' + 'listener',
    async () => {
      const { context, page, close } = await animated('immediate')
      const listenersBefore = closeListeners(page)
      const frames: Array<PageScreencastFrame> = []
      let stops = 0
      const cast = await PageScreencast.start(context, page, {
        format: 'jpeg',
        quality: 50,
        maxWidth: 640,
        maxHeight: 640,
        ack: 'immediate',
        onFrame: (frame) => frames.push(frame),
        onStop: () => stops++,
      })
      expect(cast.running).toBe(true)
      expect(closeListeners(page)).toBe(listenersBefore + 1)
      // Immediate acks keep frames coming well past Chromium's few frames in flight.
      await expect.poll(() => frames.length, { timeout: 15_000 }).toBeGreaterThan(5)
      const first = frames[0]!
      expect(Buffer.from(first.data, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8])) // a JPEG
      expect(first.metadata.deviceWidth).toBeGreaterThan(0)
      expect(first.metadata.deviceHeight).toBeGreaterThan(0)

      const stopping = cast.stop()
      const atStop = frames.length // nothing is handed on once stop() began, not even frames under way
      expect(cast.stop()).toBe(stopping)
      await stopping
      await cast.stop()
      expect(cast.running).toBe(false)
      expect(stops).toBe(1)
      await sleep(1_000)
      expect(frames.length).toBe(atStop)
      expect(closeListeners(page)).toBe(listenersBefore)
      await close()
    },
  )

  it('with deferred acks sends nothing more until a frame is acked', async () => {
    const { context, page, close } = await animated('deferred')
    const frames: Array<PageScreencastFrame> = []
    const cast = await PageScreencast.start(context, page, {
      format: 'jpeg',
      quality: 50,
      maxWidth: 640,
      maxHeight: 640,
      ack: 'deferred',
      onFrame: (frame) => frames.push(frame),
    })
    await expect.poll(() => frames.length, { timeout: 15_000 }).toBeGreaterThan(0)
    // Chromium stops after its few unacked frames in flight (`maxFramesInFlight`), though the
    // page keeps repainting: the count stays put for a second.
    const held = await settled(() => frames.length)
    expect(held).toBeLessThanOrEqual(3)

    for (const f of frames) cast.ack(f.sessionId)
    await expect.poll(() => frames.length, { timeout: 15_000 }).toBeGreaterThan(held)
    await cast.stop()
    await close()
  })

  it('stops without throwing after its page closed, and tells onStop once', async () => {
    const { context, page, close } = await animated('closed')
    let frames = 0
    let stops = 0
    const cast = await PageScreencast.start(context, page, {
      ack: 'immediate',
      onFrame: () => frames++,
      onStop: () => stops++,
    })
    await expect.poll(() => frames, { timeout: 15_000 }).toBeGreaterThan(0)
    await page.close()
    expect(cast.running).toBe(false)
    // The page's close stops it by itself; an explicit stop afterwards is a no-op.
    await expect.poll(() => stops, { timeout: 15_000 }).toBe(1)
    await expect(cast.stop()).resolves.toBeUndefined()
    expect(stops).toBe(1)
    await close()
  })

  it('a stop() racing the page close does not throw either', async () => {
    const { context, page, close } = await animated('race')
    const cast = await PageScreencast.start(context, page, { ack: 'deferred', onFrame: () => undefined })
    const closing = page.close()
    await expect(cast.stop()).resolves.toBeUndefined()
    await closing
    expect(cast.running).toBe(false)
    await close()
  })
})

describe("the runtime's screencast capability on real Chromium (issue #24: runtimes own pages)", () => {
  it(
    'with deferred acks sends nothing more until a frame is acked; frames are numbered JPEGs of the ' + 'page',
    async () => {
      const { runtime, run, contextId, page, close } = await animated('capability')
      const frames: Array<ScreencastFrame> = []
      const cast = await run(
        runtime.screencast(contextId, 't1', {
          ack: 'deferred',
          quality: 50,
          maxWidth: 640,
          maxHeight: 640,
          onFrame: (f) => frames.push(f),
        }),
      )
      await expect.poll(() => frames.length, { timeout: 15_000 }).toBeGreaterThan(0)
      // The page keeps repainting, but Chromium waits for acks after its few frames in flight.
      const held = await settled(() => frames.length)
      expect(held).toBeLessThanOrEqual(3)
      expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1))
      expect(Buffer.from(frames[0]!.data, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]))
      expect(frames[0]!.width).toBe(page.viewportSize()!.width)
      expect(cast.running).toBe(true)

      // One ack covers every frame up to it.
      cast.ack(frames.at(-1)!.seq)
      await expect.poll(() => frames.length, { timeout: 15_000 }).toBeGreaterThan(held)
      await cast.stop()
      await close()
    },
  )

  it('stop() is idempotent, hands on nothing after it began and leaves no listener on the page', async () => {
    const { runtime, run, contextId, page, close } = await animated('capability-stop')
    const listenersBefore = closeListeners(page)
    let frames = 0
    let stops = 0
    const cast = await run(
      runtime.screencast(contextId, 't1', { ack: 'auto', onFrame: () => frames++, onStop: () => stops++ }),
    )
    expect(closeListeners(page)).toBe(listenersBefore + 1)
    // Auto acks keep frames coming well past Chromium's few in flight.
    await expect.poll(() => frames, { timeout: 15_000 }).toBeGreaterThan(5)
    const stopping = cast.stop()
    const atStop = frames
    expect(cast.stop()).toBe(stopping)
    await stopping
    await cast.stop()
    expect([cast.running, stops]).toEqual([false, 1])
    await sleep(1_000)
    expect(frames).toBe(atStop)
    expect(closeListeners(page)).toBe(listenersBefore)
    await close()
  })

  it('stops by itself when its tab closes, and fails for a tab or a context that is not there', async () => {
    const { runtime, run, contextId, close } = await animated('capability-gone')
    const cast = await run(runtime.screencast(contextId, 't1', { ack: 'auto', onFrame: () => undefined }))
    await run(runtime.closeTab(contextId, 't1'))
    await expect.poll(() => cast.running, { timeout: 15_000 }).toBe(false)
    await expect(cast.stop()).resolves.toBeUndefined()
    const options = { ack: 'auto', onFrame: () => undefined } as const
    expect(await failureOf(runtime.screencast(contextId, 't1', options))).toBeInstanceOf(RuntimeError)
    await close()
    expect(await failureOf(runtime.screencast(contextId, 't1', options))).toBeInstanceOf(ContextNotFound)
  })
})
