import { describe, expect, it } from '@effect/vitest'
import type { Snapshot } from '@errands/runtime'
import { Deferred, Effect, Exit, Fiber } from 'effect'
import { SnapshotBook, type SnapshotAmendment, withHeldOwnData } from './amendments.ts'

const snap = (url: string, cookie = 'sid'): Snapshot => ({
  storage: {
    cookies: [
      {
        name: cookie,
        value: 'v',
        domain: 'shop.example',
        path: '/',
        expires: -1,
        httpOnly: false,
        secure: false,
        sameSite: 'Lax',
      },
    ],
    origins: [],
  },
  tabs: [{ url, active: true }],
  takenAt: 1,
})
const dropCookies: SnapshotAmendment = (_id, s) => ({ ...s, storage: { ...s.storage, cookies: [] } })
const cookiesOf = (s: Snapshot | undefined) => s?.storage.cookies.map((c) => c.name)

/** A read that lands when `release` is completed with its snapshot. */
const pendingRead = Effect.gen(function* () {
  const release = yield* Deferred.make<Snapshot>()
  return { release, read: Deferred.await(release) }
})

describe('SnapshotBook: amendments reach held snapshots and reads in flight', () => {
  it.effect('amends every held snapshot now, each with its own errand id', () =>
    Effect.sync(() => {
      const book = new SnapshotBook()
      book.set('a', snap('https://a/'))
      book.set('b', snap('https://b/'))
      book.amend((id, s) => (id === 'a' ? dropCookies(id, s) : s))
      expect(cookiesOf(book.get('a'))).toEqual([])
      expect(cookiesOf(book.get('b'))).toEqual(['sid'])
      expect(book.owed()).toBe(0) // nothing in flight owes it
    }),
  )

  it.effect('a read that began before an amendment lands amended; one that began after does not owe it', () =>
    Effect.gen(function* () {
      const book = new SnapshotBook()
      const early = yield* pendingRead
      const earlyFiber = yield* Effect.fork(book.read('a', early.read))
      yield* Effect.yieldNow()
      book.amend(dropCookies)
      expect(book.owed()).toBe(1)
      const late = yield* pendingRead
      const lateFiber = yield* Effect.fork(book.read('a', late.read))
      yield* Effect.yieldNow()
      // Both land with cookies (read from a context that still had them, or just re-lent).
      yield* Deferred.succeed(late.release, snap('https://late/', 'fresh'))
      yield* Deferred.succeed(early.release, snap('https://early/'))
      expect(cookiesOf(yield* Fiber.join(lateFiber))).toEqual(['fresh'])
      expect(cookiesOf(yield* Fiber.join(earlyFiber))).toEqual([])
      expect(book.owed()).toBe(0)
    }),
  )

  it.effect('amendments apply in order, and a failed or interrupted read owes nothing after', () =>
    Effect.gen(function* () {
      const book = new SnapshotBook()
      const broken = yield* Deferred.make<Snapshot, 'gone'>()
      const failing = yield* Effect.fork(book.read('a', Deferred.await(broken)))
      const hanging = yield* pendingRead
      const hangingFiber = yield* Effect.fork(book.read('a', hanging.read))
      yield* Effect.yieldNow()
      book.amend((_id, s) => ({ ...s, tabs: [...s.tabs, { url: 'https://first/', active: false }] }))
      book.amend((_id, s) => ({ ...s, tabs: s.tabs.map((t) => ({ ...t, url: `${t.url}#second` })) }))
      expect(book.owed()).toBe(2)
      yield* Deferred.fail(broken, 'gone')
      expect(Exit.isFailure(yield* Fiber.await(failing))).toBe(true)
      expect(book.owed()).toBe(2) // the other read still owes both
      yield* Fiber.interrupt(hangingFiber)
      expect(book.owed()).toBe(0)

      const ordered = yield* pendingRead
      const orderedFiber = yield* Effect.fork(book.read('a', ordered.read))
      yield* Effect.yieldNow()
      book.amend((_id, s) => ({ ...s, tabs: [...s.tabs, { url: 'https://first/', active: false }] }))
      book.amend((_id, s) => ({ ...s, tabs: s.tabs.map((t) => ({ ...t, url: `${t.url}#second` })) }))
      yield* Deferred.succeed(ordered.release, snap('https://a/'))
      expect((yield* Fiber.join(orderedFiber)).tabs.map((t) => t.url)).toEqual([
        'https://a/#second',
        'https://first/#second',
      ])
    }),
  )
})

describe('withHeldOwnData (H2, E7)', () => {
  const session = (origin: string, value: string) => ({ origin, localStorage: [{ name: 'draft', value }] })
  const indexedDB = [{ origin: 'https://shop.example', databases: [{ name: 'mail', version: 1, data: '{}' }] }]
  const held: Snapshot = {
    ...snap('https://shop.example/a'),
    tabs: [
      { id: 't1', url: 'https://shop.example/a', active: true, sessionStorage: session('https://shop.example', 'a') },
      { id: 't2', url: 'https://mail.example/', active: false, sessionStorage: session('https://mail.example', 'b') },
    ],
    indexedDB,
  }

  it(
    'keeps the held sessionStorage of a tab still on its origin, and the held IndexedDB when the crash read ' + 'none',
    () => {
      const words: Snapshot = {
        ...snap('x'),
        tabs: [
          { id: 't1', url: 'https://shop.example/b', active: true },
          { id: 't2', url: 'https://elsewhere.example/', active: false },
          { id: 't3', url: 'https://shop.example/', active: false },
        ],
        takenAt: 9,
      }
      const out = withHeldOwnData(words, held)
      expect(out.tabs.map((t) => t.sessionStorage?.localStorage[0]?.value)).toEqual(['a', undefined, undefined])
      expect(out.indexedDB).toEqual(indexedDB)
      expect(out.takenAt).toBe(9)
    },
  )

  it('never replaces what the crash read itself, and changes nothing without a held snapshot', () => {
    const fresh = [{ origin: 'https://shop.example', databases: [] }]
    const words: Snapshot = {
      ...snap('x'),
      tabs: [
        {
          id: 't1',
          url: 'https://shop.example/',
          active: true,
          sessionStorage: session('https://shop.example', 'new'),
        },
      ],
      indexedDB: fresh,
    }
    expect(withHeldOwnData(words, held)).toEqual(words)
    expect(withHeldOwnData(words, undefined)).toBe(words)
  })
})
