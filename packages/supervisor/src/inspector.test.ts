import { it } from '@effect/vitest'
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect'
import { Effect } from 'effect'
import * as http from 'node:http'
import { describe, expect } from 'vitest'
import { WebSocket } from 'ws'
import { makeInspectorSwitch, redactInspection, redactText, type InspectorOutlet } from './inspector.ts'
import { openInspectorRelay } from './inspectorRelay.ts'
import { services, testSupervisor, visitAs } from './testing.ts'

// V3 with L7: the switch forwards every errand actor's inspection events to a real
// @statelyai/inspect inspector only while on, and nothing secret ever leaves.

type Snap = Extract<StatelyInspectionEvent, { type: '@xstate.snapshot' }>
type Act = Extract<StatelyInspectionEvent, { type: '@xstate.actor' }>

const valueOf = (e: { snapshot: unknown }) => JSON.stringify((e.snapshot as { value?: unknown }).value)
const errandSnapshots = (events: ReadonlyArray<StatelyInspectionEvent>, sessionId: string) =>
  events.filter((e): e is Snap => e.type === '@xstate.snapshot' && e.sessionId === sessionId).map(valueOf)
const eventTypes = (events: ReadonlyArray<StatelyInspectionEvent>) =>
  events.filter((e) => e.type === '@xstate.event').map((e) => (e as { event: { type: string } }).event.type)
const errandActor = (events: ReadonlyArray<StatelyInspectionEvent>) =>
  events.find((e): e is Act => e.type === '@xstate.actor' && e.name === 'errand:task-1')

/** Waits (on real time: the inspector delivers on a timer) until `predicate` holds. */
const eventually = (predicate: () => boolean, what: string, ms = 5_000) =>
  Effect.promise(async () => {
    const until = Date.now() + ms
    while (!predicate()) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 10))
    }
  })
/** Lets the inspector's pending deliveries (a `setTimeout(0)` each) run. */
const drain = Effect.promise(() => new Promise((r) => setTimeout(r, 50)))

/** An outlet that keeps what the inspector sends it (the switch's own unit tests). */
const recordingOutlet = () => {
  const received: StatelyInspectionEvent[] = []
  let opened = 0
  let closed = 0
  const outlet: InspectorOutlet = {
    adapter: { send: (e) => void received.push(e) },
    url: 'http://127.0.0.1:1/',
    events: 'ws://127.0.0.1:1/',
    viewer: 'https://stately.ai/inspect',
    close: async () => void closed++,
  }
  return { received, open: async () => (opened++, outlet), counts: () => ({ opened, closed }) }
}

describe('the inspector switch (V3)', () => {
  it.scoped(
    'forwards nothing while off; on, it shows the live errands as they are now and then every change; off again, ' +
      'nothing',
    () =>
      Effect.gen(function* () {
        const out = recordingOutlet()
        const inspector = yield* makeInspectorSwitch({ open: out.open })
        yield* Effect.gen(function* () {
          const { supervisor, memory } = yield* services
          const { contextId } = yield* supervisor.open({ id: 'task-1', kind: 'task' })
          visitAs(memory, contextId, 'a')
          yield* supervisor.pageLoaded('task-1')
          yield* drain
          expect(out.counts().opened).toBe(0)
          expect(out.received).toEqual([])
          expect(yield* inspector.status).toMatchObject({ on: false, url: null, events: null })

          const on = yield* inspector.set(true)
          expect(on).toMatchObject({ on: true, url: 'http://127.0.0.1:1/', error: null })
          expect(on.actors).toBeGreaterThan(0)
          yield* eventually(() => errandActor(out.received) !== undefined, 'the errand registered on switching on')
          const registration = errandActor(out.received)!
          // Registered with its state of now: active (it was opened while the switch was off).
          expect(JSON.stringify((registration.snapshot as { value: unknown }).value)).toContain('active')
          expect(JSON.parse(registration.definition!).id).toBe('errand')
          // Nothing from the time it was off: no page.loaded event, no seeding snapshot.
          expect(eventTypes(out.received)).not.toContain('page.loaded')
          expect(errandSnapshots(out.received, registration.sessionId)).toEqual([])

          yield* supervisor.taskChanged('task-1', 'interrupted')
          yield* eventually(
            () => errandSnapshots(out.received, registration.sessionId).includes('"parked"'),
            'the parked snapshot',
          )
          expect(errandSnapshots(out.received, registration.sessionId)).toEqual(
            expect.arrayContaining(['"parking"', '"parked"']),
          )
          expect(eventTypes(out.received)).toContain('task.changed')

          const off = yield* inspector.set(false)
          expect(off).toMatchObject({ on: false, url: null })
          expect(out.counts()).toEqual({ opened: 1, closed: 1 })
          yield* drain
          const before = out.received.length
          yield* supervisor.resume('task-1')
          yield* supervisor.pageLoaded('task-1')
          yield* drain
          expect(out.received.length).toBe(before)
          // Switching off twice, or on twice, changes nothing.
          yield* inspector.set(false)
          expect(out.counts()).toEqual({ opened: 1, closed: 1 })
        }).pipe(Effect.provide(testSupervisor({}, { inspect: inspector.inspect })))
      }),
  )

  it.scoped('never lets a cookie or storage value, or a URL, out (L7)', () =>
    Effect.gen(function* () {
      const out = recordingOutlet()
      const inspector = yield* makeInspectorSwitch({ open: out.open, on: true })
      yield* Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        const { contextId } = yield* supervisor.open({ id: 'task-1', kind: 'task' })
        visitAs(memory, contextId, 'a')
        yield* supervisor.pageLoaded('task-1')
        yield* supervisor.taskChanged('task-1', 'interrupted')
        yield* supervisor.resume('task-1')
        yield* supervisor.taskChanged('task-1', 'done')
        yield* eventually(
          () => eventTypes(out.received).filter((t) => t === 'task.changed').length === 2,
          'both task changes',
        )
      }).pipe(Effect.provide(testSupervisor({}, { inspect: inspector.inspect })))
      const all = JSON.stringify(out.received)
      expect(errandSnapshots(out.received, errandActor(out.received)!.sessionId)).toEqual(
        expect.arrayContaining(['"seeding"', '"parking"', '"parked"', '"resuming"', '"closing"']),
      )
      expect(all).not.toContain('secret-a')
      expect(all).not.toContain('item-a')
      expect(all).not.toContain('shop.test/')
    }),
  )

  it('redacts addresses and cookie/storage fields, whatever an effect failed with', () => {
    expect(redactText('net::ERR_NAME_NOT_RESOLVED at https://shop.test/basket?id=7 and wss://x.test/s')).toBe(
      'net::ERR_NAME_NOT_RESOLVED at [url] and [url]',
    )
    const error = Object.assign(new Error('goto https://shop.test/a?token=s3cret failed'), { reason: 'unavailable' })
    const event = {
      type: '@xstate.event',
      sessionId: 'x:1',
      id: null,
      createdAt: '0',
      rootId: 'x:0',
      _version: '0.7.2',
      sourceId: undefined,
      event: {
        type: 'xstate.error.actor.openContext',
        error,
        storage: {
          cookies: [{ name: 'sid', value: 'cookie-value' }],
          origins: [{ origin: 'https://shop.test', localStorage: [{ name: 'k', value: 'v' }] }],
        },
        nested: { definition: '{"note":"see https://shop.test/x\\"y"}' },
      },
    } as unknown as StatelyInspectionEvent
    const cyclic: Record<string, unknown> = { type: 'loop' }
    cyclic.self = cyclic
    const plain = redactInspection({
      ...event,
      event: { ...(event as { event: object }).event, cyclic },
    } as unknown as StatelyInspectionEvent)
    const text = JSON.stringify(plain)
    expect(text).not.toMatch(/shop\.test|s3cret|cookie-value/)
    expect(text).toContain('"storage":"[redacted]"')
    expect(text).toContain('"message":"goto [url] failed"')
    expect(text).toContain('"reason":"unavailable"')
    expect(text).toContain('[circular]')
    // A JSON string that held an address is still JSON.
    expect(
      JSON.parse((plain as unknown as { event: { nested: { definition: string } } }).event.nested.definition),
    ).toEqual({ note: 'see [url]"y' })
  })
})

/** The raw answer to a request on the relay's port (so a wrong Host can be sent). */
const raw = (port: number, headers: Record<string, string>, upgrade = false) =>
  new Promise<number>((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/',
      headers: upgrade
        ? {
            ...headers,
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          }
        : headers,
    })
    req.on('response', (res) => (res.resume(), resolve(res.statusCode ?? 0)))
    req.on('upgrade', (res, socket) => (socket.destroy(), resolve(res.statusCode ?? 0)))
    req.on('error', reject)
    req.end()
  })

describe('the inspector relay on 127.0.0.1 (a real Stately inspector client)', () => {
  it.scoped(
    "a @statelyai/inspect WebSocket receiver gets a live errand's snapshots while on, and none of what happened " +
      'while off',
    () =>
      Effect.gen(function* () {
        const inspector = yield* makeInspectorSwitch({ open: () => openInspectorRelay({ port: 0 }) })
        yield* Effect.gen(function* () {
          const { supervisor, memory } = yield* services
          const on = yield* inspector.set(true)
          expect(on.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
          expect(on.events).toBe(on.url!.replace('http:', 'ws:'))
          const first: StatelyInspectionEvent[] = []
          createWebSocketReceiver({ server: on.events! }).subscribe((e) => void first.push(e))
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))

          const { contextId } = yield* supervisor.open({ id: 'task-1', kind: 'task' })
          visitAs(memory, contextId, 'a')
          yield* supervisor.pageLoaded('task-1')
          yield* supervisor.taskChanged('task-1', 'interrupted')
          yield* eventually(
            () =>
              errandActor(first) !== undefined &&
              errandSnapshots(first, errandActor(first)!.sessionId).includes('"parked"'),
            'the parked snapshot at the receiver',
          )
          const sessionId = errandActor(first)!.sessionId
          expect(errandSnapshots(first, sessionId)).toEqual(
            expect.arrayContaining(['"seeding"', '"parking"', '"parked"']),
          )
          expect(eventTypes(first)).toEqual(expect.arrayContaining(['page.loaded', 'task.changed']))
          expect(JSON.stringify(first)).not.toMatch(/secret-a|item-a|shop\.test\//)

          // Off: the port closes; what the errand does now is seen by nobody.
          yield* inspector.set(false)
          const gone = yield* Effect.promise(() =>
            raw(Number(new URL(on.url!).port), { host: new URL(on.url!).host }).then(
              () => false,
              () => true,
            ),
          )
          expect(gone).toBe(true)
          yield* supervisor.resume('task-1')
          yield* supervisor.taskChanged('task-1', 'running')

          // On again: a new receiver sees the errand as it is now (active), not how it got there.
          const again = yield* inspector.set(true)
          const second: StatelyInspectionEvent[] = []
          createWebSocketReceiver({ server: again.events! }).subscribe((e) => void second.push(e))
          yield* eventually(
            () => second.some((e) => e.type === '@xstate.actor' && e.sessionId === sessionId),
            'the registration at the second receiver',
          )
          const registration = second.find((e): e is Act => e.type === '@xstate.actor' && e.sessionId === sessionId)!
          expect(JSON.stringify((registration.snapshot as { value: unknown }).value)).toContain('active')
          yield* drain
          expect(errandSnapshots(second, sessionId)).not.toContain('"resuming"')
          expect(eventTypes(second)).not.toContain('task.changed')
          expect(eventTypes(second)).not.toContain('errand.used')
          yield* supervisor.taskChanged('task-1', 'done')
          yield* eventually(
            () => errandSnapshots(second, sessionId).includes('"closing"'),
            'the closing snapshot at the second receiver',
          )
        }).pipe(Effect.provide(testSupervisor({}, { inspect: inspector.inspect })))
      }),
  )

  it.scoped(
    'serves the page that embeds the Stately inspector; refuses other Hosts, and WebSockets from other origins (B7)',
    () =>
      Effect.gen(function* () {
        const outlet = yield* Effect.acquireRelease(
          Effect.promise(() => openInspectorRelay({ port: 0, frameAncestors: ['http://127.0.0.1:7777'] })),
          (o) => Effect.promise(o.close),
        )
        const port = Number(new URL(outlet.url).port)
        const page = yield* Effect.promise(() => fetch(outlet.url))
        expect(page.status).toBe(200)
        const html = yield* Effect.promise(() => page.text())
        expect(html).toContain('<iframe id="viewer" src="https://stately.ai/inspect"')
        expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self' http://127.0.0.1:7777")
        expect(page.headers.get('access-control-allow-origin')).toBeNull()

        expect(yield* Effect.promise(() => raw(port, { host: `evil.example:${port}` }))).toBe(421)
        expect(
          yield* Effect.promise(() => raw(port, { host: `127.0.0.1:${port}`, origin: 'https://evil.example' }, true)),
        ).toBe(403)
        // The edge's one Host rule: a rebinding name is refused, another loopback spelling too.
        expect(yield* Effect.promise(() => raw(port, { host: `127.0.0.2:${port}` }, true))).toBe(421)
        expect(
          yield* Effect.promise(() =>
            raw(port, { host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` }, true),
          ),
        ).toBe(403)
        // Its own page's origin may connect.
        const own = yield* Effect.promise(
          () =>
            new Promise<boolean>((resolve) => {
              const ws = new WebSocket(outlet.events, { origin: `http://127.0.0.1:${port}` })
              ws.on('open', () => (ws.close(), resolve(true)))
              ws.on('error', () => resolve(false))
            }),
        )
        expect(own).toBe(true)
      }),
  )

  it.scoped('switching on fails in words when the port is taken, and the switch stays off', () =>
    Effect.gen(function* () {
      const holder = yield* Effect.acquireRelease(
        Effect.promise(() => openInspectorRelay({ port: 0 })),
        (o) => Effect.promise(o.close),
      )
      const port = Number(new URL(holder.url).port)
      const inspector = yield* makeInspectorSwitch({ open: () => openInspectorRelay({ port }) })
      const error = yield* Effect.flip(inspector.set(true))
      expect(error).toMatchObject({ _tag: 'InspectorUnavailable', reason: 'port-in-use', status: 503 })
      expect(error.message).toContain('ERRANDS_INSPECT_PORT')
      expect(yield* inspector.status).toMatchObject({ on: false, error: error.message })
    }),
  )
})
