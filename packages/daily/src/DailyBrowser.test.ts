import { it } from '@effect/vitest'
import { Effect, Either, Fiber, TestClock } from 'effect'
import { describe, expect } from 'vitest'
import type { Credentials } from './api.ts'
import { DailyBrowser, makeDailyBrowser, type DailyBrowserShape } from './DailyBrowser.ts'
import { dailyExtensionId } from './extensionId.ts'
import type { DailyBrowserOptionsInput } from './options.ts'

const ORIGIN = `chrome-extension://${dailyExtensionId}`
const SHARED = { tabId: 7, url: 'https://mail.example/inbox?session=s3cr3t#m1', documentId: 'DOC-1', title: 'Inbox' }

/** A paired extension, driven directly through the service (the door is tested on its own). */
const pairedExtension = (daily: DailyBrowserShape, botId = 'bot-1') =>
  Effect.gen(function* () {
    const { code } = yield* daily.createPairing(botId)
    const redeemed = yield* daily.redeem({ code, origin: ORIGIN, peer: '127.0.0.1' })
    const creds: Credentials = { token: redeemed.token, origin: ORIGIN }
    return { code, creds, redeemed }
  })

const sharedExtension = (daily: DailyBrowserShape, botId = 'bot-1') =>
  Effect.gen(function* () {
    const ext = yield* pairedExtension(daily, botId)
    yield* daily.share(ext.creds, SHARED)
    return ext
  })

/** The extension's answer for the shared document (or another one). */
const answerFor = (id: string, page = SHARED) => ({
  id,
  url: page.url,
  documentId: page.documentId,
  title: page.title,
  text: 'Hello Ada\nYou have 3 new messages',
  controls: [
    { kind: 'button' as const, label: 'Compose' },
    { kind: 'field' as const, label: 'Password', inputType: 'password' },
  ],
})

/** Starts `observe` in the background and returns its fiber once the request is pending. */
const observing = (daily: DailyBrowserShape, creds: Credentials, botId = 'bot-1') =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(Effect.either(daily.observe(botId)))
    yield* Effect.yieldNow()
    const { requests } = yield* daily.poll(creds, { waitMs: 0, inFlight: [] })
    expect(requests).toHaveLength(1)
    return { fiber, id: requests[0]!.id }
  })

const make = (options: DailyBrowserOptionsInput = {}) => makeDailyBrowser(options)
const failure = <A, E, R>(e: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(e), (r) => (Either.isLeft(r) ? r.left : undefined))

describe('DailyBrowser — pairing (D1, D2)', () => {
  it.scoped('a code is random, one-use and redeemable only by the extension Origin', () =>
    Effect.gen(function* () {
      const daily = yield* make()
      const a = yield* daily.createPairing('bot-1')
      const b = yield* daily.createPairing('bot-2')
      expect(a.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/)
      expect(a.code).not.toBe(b.code)
      expect(a.expiresAt).toBe(300_000)
      expect(
        yield* failure(daily.redeem({ code: a.code, origin: 'https://evil.example', peer: '127.0.0.1' })),
      ).toMatchObject({ _tag: 'Forbidden', reason: 'bad-origin' })
      expect(yield* failure(daily.redeem({ code: a.code, origin: undefined, peer: '127.0.0.1' }))).toMatchObject({
        _tag: 'Forbidden',
      })
      const ok = yield* daily.redeem({
        code: a.code.toLowerCase().replaceAll('-', ' '),
        origin: ORIGIN,
        peer: '127.0.0.1',
      })
      expect(ok).toMatchObject({ botId: 'bot-1', pollTimeoutMs: 45_000, pollWaitMs: 20_000, expiresAt: 1_800_000 })
      expect(ok.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(yield* failure(daily.redeem({ code: a.code, origin: ORIGIN, peer: '127.0.0.1' }))).toMatchObject({
        _tag: 'PairingRefused',
        status: 403,
      })
      expect((yield* daily.status('bot-1'))?.state).toBe('awaiting')
    }),
  )

  it.scoped('a code older than five minutes is refused, and its pairing has expired', () =>
    Effect.gen(function* () {
      const daily = yield* make()
      const { code } = yield* daily.createPairing('bot-1')
      yield* TestClock.adjust('299 seconds')
      expect((yield* daily.status('bot-1'))?.state).toBe('pairing')
      yield* TestClock.adjust('1 second')
      expect(yield* daily.status('bot-1')).toMatchObject({
        state: 'expired',
        cause: 'pairing-expired',
        endedAt: 300_000,
      })
      expect(yield* failure(daily.redeem({ code, origin: ORIGIN, peer: '127.0.0.1' }))).toMatchObject({
        _tag: 'PairingRefused',
      })
    }),
  )

  it.scoped(
    'wrong codes are rate-limited per source and globally; while limited even the right code is refused — never from ' +
      'a source that did not fail (D1)',
    () =>
      Effect.gen(function* () {
        const daily = yield* make({ redeemFailuresPerPeer: 3, redeemFailuresGlobal: 5, redeemWindowMs: 60_000 })
        const { code } = yield* daily.createPairing('bot-1')
        for (let i = 0; i < 3; i++)
          expect(
            yield* failure(daily.redeem({ code: 'AAAA-AAAA-AAAA', origin: ORIGIN, peer: '127.0.0.1' })),
          ).toMatchObject({ _tag: 'PairingRefused' })
        expect(yield* failure(daily.redeem({ code, origin: ORIGIN, peer: '127.0.0.1' }))).toMatchObject({
          _tag: 'RateLimited',
          status: 429,
          retryAfterSeconds: 60,
        })
        // Another loopback peer still may, until the global limit is reached too — then it is held back as well…
        for (let i = 0; i < 2; i++)
          expect(yield* failure(daily.redeem({ code: 'nonsense', origin: ORIGIN, peer: '127.0.0.2' }))).toMatchObject({
            _tag: 'PairingRefused',
          })
        expect(yield* failure(daily.redeem({ code, origin: ORIGIN, peer: '127.0.0.2' }))).toMatchObject({
          _tag: 'RateLimited',
        })
        // …but a source that never failed still redeems the right code.
        expect((yield* daily.redeem({ code, origin: ORIGIN, peer: '127.0.0.3' })).botId).toBe('bot-1')
        yield* TestClock.adjust('61 seconds')
        yield* daily.createPairing('bot-1') // the old code's five minutes are not over, but a fresh one is used below
        const fresh = yield* daily.createPairing('bot-9')
        expect((yield* daily.redeem({ code: fresh.code, origin: ORIGIN, peer: '127.0.0.1' })).botId).toBe('bot-9')
      }),
  )

  it.scoped('a newer code for the same bot replaces its lease', () =>
    Effect.gen(function* () {
      const daily = yield* make()
      const old = yield* sharedExtension(daily)
      const { fiber } = yield* observing(daily, old.creds)
      yield* daily.createPairing('bot-1')
      const result = yield* Fiber.join(fiber)
      expect(Either.isLeft(result) && result.left).toMatchObject({ reason: 'lease-ended', cause: 'replaced' })
      expect(yield* failure(daily.poll(old.creds, { waitMs: 0, inFlight: [] }))).toMatchObject({
        _tag: 'LeaseEnded',
        reason: 'replaced',
        status: 410,
      })
    }),
  )

  it.scoped('options out of range stop start-up with the option and its range named', () =>
    Effect.gen(function* () {
      const e = yield* failure(make({ pollTimeoutMs: 60_000, leaseLimitMs: 10 }))
      expect(e).toMatchObject({ _tag: 'DailyConfigError' })
      expect(e?.message).toContain('pollTimeoutMs must be an integer between 1000 and 45000')
      expect(e?.message).toContain('leaseLimitMs')
    }),
  )
})

describe('DailyBrowser — the lease (D2, D4)', () => {
  it.scoped('a token works only from the Origin that redeemed it', () =>
    Effect.gen(function* () {
      const daily = yield* make({ extensionIds: [dailyExtensionId, 'a'.repeat(32)] })
      const { creds } = yield* pairedExtension(daily)
      expect(
        yield* failure(daily.leaseStatus({ ...creds, origin: `chrome-extension://${'a'.repeat(32)}` })),
      ).toMatchObject({ _tag: 'Forbidden', reason: 'origin-mismatch' })
      expect(yield* failure(daily.leaseStatus({ ...creds, origin: undefined }))).toMatchObject({
        reason: 'origin-mismatch',
      })
      expect(yield* failure(daily.leaseStatus({ token: 'x'.repeat(43), origin: ORIGIN }))).toMatchObject({
        _tag: 'Unauthorized',
        reason: 'wrong-token',
      })
      expect(yield* failure(daily.leaseStatus({ token: undefined, origin: ORIGIN }))).toMatchObject({
        reason: 'missing-token',
      })
      expect((yield* daily.leaseStatus(creds)).state).toBe('awaiting')
    }),
  )

  it.scoped('observe returns bounded, fenced, untrusted page content without the URL query', () =>
    Effect.gen(function* () {
      const daily = yield* make({ maxTextChars: 100 })
      const { creds } = yield* sharedExtension(daily)
      const { fiber, id } = yield* observing(daily, creds)
      yield* daily.answer(creds, { ...answerFor(id), text: 'x'.repeat(500) })
      const result = yield* Fiber.join(fiber)
      expect(Either.isRight(result)).toBe(true)
      const r = Either.getOrThrow(result)
      expect(r).toMatchObject({
        target: 'daily-browser',
        untrusted: true,
        page: { origin: 'https://mail.example', path: '/inbox', title: 'Inbox' },
      })
      expect(r.text).toHaveLength(100)
      expect(r.truncated.text).toBe(true)
      expect(r.controls).toEqual([
        { kind: 'button', label: 'Compose' },
        { kind: 'field', label: 'Password', inputType: 'password' },
      ])
      expect(JSON.stringify(r)).not.toContain('s3cr3t')
      expect(yield* failure(daily.answer(creds, answerFor(id)))).toMatchObject({
        _tag: 'UnknownObservation',
        reason: 'not-pending',
      })
    }),
  )

  it.scoped('an answer from another document is rejected and ends the lease (fence)', () =>
    Effect.gen(function* () {
      const daily = yield* make()
      const { creds } = yield* sharedExtension(daily)
      const { fiber, id } = yield* observing(daily, creds)
      const e = yield* failure(daily.answer(creds, answerFor(id, { ...SHARED, documentId: 'DOC-2' })))
      expect(e).toMatchObject({ _tag: 'LeaseEnded', reason: 'navigation' })
      const result = yield* Fiber.join(fiber)
      expect(Either.isLeft(result) && result.left).toMatchObject({ reason: 'fence-mismatch' })
      expect(yield* daily.status('bot-1')).toMatchObject({ state: 'revoked', cause: 'navigation' })
    }),
  )

  it.scoped('observing before a Share, or without a lease, says what to do', () =>
    Effect.gen(function* () {
      const daily = yield* make()
      expect(yield* failure(daily.observe('bot-1'))).toMatchObject({ reason: 'no-lease' })
      yield* pairedExtension(daily)
      const e = yield* failure(daily.observe('bot-1'))
      expect(e).toMatchObject({ reason: 'not-shared' })
      expect(e?.message).toContain('Share current tab read-only')
    }),
  )

  it.scoped('a Share happens once per lease', () =>
    Effect.gen(function* () {
      const daily = yield* make()
      const { creds } = yield* sharedExtension(daily)
      expect(yield* failure(daily.share(creds, { ...SHARED, tabId: 8 }))).toMatchObject({
        _tag: 'LeaseConflict',
        reason: 'already-shared',
      })
    }),
  )

  it.scoped('an unanswered observation times out and is withdrawn', () =>
    Effect.gen(function* () {
      const daily = yield* make({ observeTimeoutMs: 5_000 })
      const { creds } = yield* sharedExtension(daily)
      const { fiber, id } = yield* observing(daily, creds)
      yield* TestClock.adjust('5 seconds')
      const result = yield* Fiber.join(fiber)
      expect(Either.isLeft(result) && result.left).toMatchObject({ reason: 'timeout', status: 504 })
      expect((yield* daily.poll(creds, { waitMs: 0, inFlight: [] })).requests).toEqual([])
      expect(yield* failure(daily.answer(creds, answerFor(id)))).toMatchObject({ _tag: 'UnknownObservation' })
    }),
  )

  it.scoped('the extension failing to read is reported to the bot', () =>
    Effect.gen(function* () {
      const daily = yield* make()
      const { creds } = yield* sharedExtension(daily)
      const { fiber, id } = yield* observing(daily, creds)
      yield* daily.failObservation(creds, { id, message: 'Cannot access contents of the page.' })
      const result = yield* Fiber.join(fiber)
      expect(Either.isLeft(result) && result.left.message).toContain('Cannot access contents of the page.')
    }),
  )

  it.scoped('a long poll wakes when an observation is requested', () =>
    Effect.gen(function* () {
      const daily = yield* make()
      const { creds } = yield* sharedExtension(daily)
      const poll = yield* Effect.fork(daily.poll(creds, { waitMs: 20_000, inFlight: [] }))
      yield* Effect.yieldNow()
      const observe = yield* Effect.fork(daily.observe('bot-1'))
      const { requests } = yield* Fiber.join(poll)
      expect(requests.map((r) => r.kind)).toEqual(['observe'])
      expect(requests[0]!.limits).toEqual({ maxTextChars: 20_000, maxControls: 200, maxLabelChars: 160 })
      // In flight at the extension: not handed out again.
      expect((yield* daily.poll(creds, { waitMs: 0, inFlight: [requests[0]!.id] })).requests).toEqual([])
      yield* daily.answer(creds, answerFor(requests[0]!.id))
      expect((yield* Fiber.join(observe)).text).toContain('Hello Ada')
    }),
  )
})

describe('DailyBrowser — revocation (D5, D6)', () => {
  const causes: Array<[string, (d: DailyBrowserShape, c: Credentials) => Effect.Effect<unknown, unknown>, string]> = [
    ['return by the extension', (d, c) => d.giveBack(c), 'return'],
    ['return by the person', (d) => d.returnLease('bot-1'), 'return'],
    ['a reload', (d, c) => d.report(c, 'reloaded'), 'navigation'],
    ['a navigation', (d, c) => d.report(c, 'navigated'), 'navigation'],
    ['the tab closing', (d, c) => d.report(c, 'tab-closed'), 'tab-closed'],
    ['access removal', (d) => d.revoke('bot-1', 'access-removed'), 'access-removed'],
    ['a target change', (d) => d.revoke('bot-1', 'target-changed'), 'target-changed'],
    ['host disposal', (d) => d.dispose, 'host-disposed'],
  ]

  for (const [name, end, cause] of causes) {
    it.scoped(`${name} rejects the pending observation and invalidates approval`, () =>
      Effect.gen(function* () {
        const daily = yield* make()
        const { creds } = yield* sharedExtension(daily)
        expect((yield* daily.approve('bot-1')).approved).toBe(true)
        const { fiber, id } = yield* observing(daily, creds)
        const poll = yield* Effect.fork(Effect.either(daily.poll(creds, { waitMs: 20_000, inFlight: [id] })))
        yield* Effect.yieldNow()
        yield* end(daily, creds)
        const result = yield* Fiber.join(fiber)
        expect(Either.isLeft(result) && result.left).toMatchObject({
          _tag: 'ObservationFailed',
          reason: 'lease-ended',
          cause,
        })
        // The waiting poll is told at once, and so is every later call with the token.
        const polled = yield* Fiber.join(poll)
        expect(Either.isLeft(polled) && polled.left).toMatchObject({ _tag: 'LeaseEnded', reason: cause })
        expect(yield* failure(daily.answer(creds, answerFor(id)))).toMatchObject({ _tag: 'LeaseEnded' })
        expect(yield* daily.status('bot-1')).toMatchObject({ cause, approved: false, pendingObservations: 0 })
        expect(yield* failure(daily.observe('bot-1'))).toMatchObject({ reason: 'lease-ended', cause })
      }),
    )
  }

  it.scoped('45 s without a poll revokes; polling keeps it; 30 minutes end it anyway', () =>
    Effect.gen(function* () {
      const daily = yield* make()
      const { creds } = yield* sharedExtension(daily)
      for (let i = 0; i < 5; i++) {
        yield* TestClock.adjust('40 seconds')
        yield* daily.poll(creds, { waitMs: 0, inFlight: [] })
      }
      expect((yield* daily.status('bot-1'))?.state).toBe('shared')
      yield* TestClock.adjust('45 seconds')
      expect(yield* daily.status('bot-1')).toMatchObject({ state: 'revoked', cause: 'poll-timeout' })

      const next = yield* sharedExtension(daily, 'bot-2')
      for (let t = 0; t < 30 * 60; t += 30) {
        yield* TestClock.adjust('30 seconds')
        if ((yield* daily.status('bot-2'))?.state !== 'shared') break
        yield* daily.poll(next.creds, { waitMs: 0, inFlight: [] })
      }
      expect(yield* daily.status('bot-2')).toMatchObject({ state: 'expired', cause: 'lease-limit' })
    }),
  )

  it.scoped('dispose is idempotent and refuses new pairings; closing the scope disposes', () =>
    Effect.gen(function* () {
      const daily = yield* make()
      yield* pairedExtension(daily)
      yield* daily.dispose
      yield* daily.dispose
      expect(yield* daily.status('bot-1')).toMatchObject({ state: 'revoked', cause: 'host-disposed' })
      expect(yield* failure(daily.createPairing('bot-2'))).toMatchObject({
        _tag: 'DailyUnavailable',
        reason: 'disposed',
      })
      const views: Array<string> = []
      const inner = yield* Effect.scoped(
        Effect.gen(function* () {
          const d = yield* DailyBrowser
          d.onChange((v) => views.push(`${v.botId}:${v.state}`))
          yield* d.createPairing('bot-3')
          return d
        }).pipe(Effect.provide(DailyBrowser.layer())),
      )
      expect((yield* inner.status('bot-3'))?.cause).toBe('host-disposed')
      expect(views).toContain('bot-3:revoked')
    }),
  )

  it.scoped('pairings and leases are process-local: a restarted service knows no code and no token (D6)', () =>
    Effect.gen(function* () {
      const before = yield* make()
      const { code } = yield* before.createPairing('bot-1')
      const { creds } = yield* pairedExtension(before, 'bot-2')
      const after = yield* make()
      expect(yield* failure(after.redeem({ code, origin: ORIGIN, peer: '127.0.0.1' }))).toMatchObject({
        _tag: 'PairingRefused',
      })
      expect(yield* failure(after.poll(creds, { waitMs: 0, inFlight: [] }))).toMatchObject({
        _tag: 'Unauthorized',
        reason: 'wrong-token',
      })
      expect(yield* after.list).toEqual([])
    }),
  )

  it.scoped('ended leases are forgotten beyond keepEndedLeases; pairings are capped', () =>
    Effect.gen(function* () {
      const daily = yield* make({ keepEndedLeases: 1, maxOpenLeases: 2 })
      yield* daily.createPairing('a')
      yield* daily.createPairing('b')
      expect(yield* failure(daily.createPairing('c'))).toMatchObject({ reason: 'too-many-leases', status: 503 })
      yield* daily.returnLease('a')
      yield* daily.returnLease('b')
      expect((yield* daily.list).map((v) => v.botId)).toEqual(['b'])
    }),
  )

  it.effect('the test layer fails loudly for what it does not provide', () =>
    Effect.gen(function* () {
      const daily = yield* DailyBrowser
      const exit = yield* Effect.exit(daily.createPairing('x'))
      expect(exit._tag).toBe('Failure')
      expect(String(exit)).toContain('not provided')
    }).pipe(Effect.provide(DailyBrowser.layerTest({}))),
  )
})
