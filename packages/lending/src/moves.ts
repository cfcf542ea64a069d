/**
 * Moving sign-ins, one errand at a time: lending a site's cookies (and localStorage) from the
 * main context into an open context or a parked record, and taking sites — or everything —
 * back out of them. Only ever **from main into an errand** and **out of an errand**: nothing
 * here writes to the main context (L4, "never back").
 *
 * Every function reports what it moved by cookie names and sites only (L7).
 *
 * @example
 * const moved = yield* takeFromContext(deps, 'task-1', contextId, new Set(['shop.example']))
 * // { conversationId: 'task-1', where: 'open', cookies: ['sid@shop.example'], origins: ['shop.example'] }
 */
import type { ContextId, Cookie, OriginStorage, RuntimeShape, StorageState } from '@errands/runtime'
import type { ParkedRecord, SealedStoreShape } from '@errands/store'
import { Effect, Option } from 'effect'
import { LendFailed } from './errors.ts'
import { storageForSites } from './filter.ts'
import { cookieNames, originSites } from './redact.ts'
import { cookieSite, originSite } from './sites.ts'

/**
 * Which sites a take-back covers: some sites, or everything an errand holds ("sign out of every site").
 *
 * @example
 * const reach: Reach = new Set(['shop.example'])
 */
export type Reach = ReadonlySet<string> | 'all'

/**
 * What one move did to one errand, by cookie names and sites only.
 *
 * @example
 * const m: Moved = { conversationId: 't1', where: 'parked', cookies: ['sid@shop.example'], origins: [] }
 */
export interface Moved {
  readonly conversationId: string
  /** `open`: its live context; `parked`: its sealed record. */
  readonly where: 'open' | 'parked'
  /** `name@site` of every cookie moved, sorted. */
  readonly cookies: ReadonlyArray<string>
  /** Sites of the localStorage origins moved, sorted. */
  readonly origins: ReadonlyArray<string>
}

/**
 * The seam these functions use.
 *
 * @example
 * const deps: MoveDeps = { runtime, store }
 */
export interface MoveDeps {
  readonly runtime: RuntimeShape
  readonly store: SealedStoreShape
}

const cookieIn = (reach: Reach) => (c: Cookie) => reach === 'all' || reach.has(cookieSite(c))
const originIn = (reach: Reach) => (origin: string) => {
  if (reach === 'all') return true
  const site = originSite(origin)
  return site !== undefined && reach.has(site)
}

/**
 * Lent sites without the ones of `reach`.
 *
 * @example
 * sitesWithout(['a.example', 'b.example'], new Set(['a.example'])) // ['b.example']
 */
export const sitesWithout = (sites: ReadonlyArray<string>, reach: Reach): ReadonlyArray<string> =>
  reach === 'all' ? [] : sites.filter((s) => !reach.has(s))

/**
 * `storage` without the cookies and localStorage origins of `reach`.
 *
 * @example
 * storageWithout(snapshot.storage, new Set(['shop.example']))
 */
export const storageWithout = (storage: StorageState, reach: Reach): StorageState => ({
  cookies: storage.cookies.filter((c) => !cookieIn(reach)(c)),
  origins: storage.origins.filter((o) => !originIn(reach)(o.origin)),
})

const cookieKey = (c: Pick<Cookie, 'name' | 'domain' | 'path'>) => `${c.name}\u0000${c.domain}\u0000${c.path}`

/**
 * `base` with `add` laid over it: a cookie of `add` replaces the one with the same name, domain
 * and path; an origin of `add` replaces the same origin's items.
 *
 * @example
 * mergeStorage(record.snapshot.storage, storageForSites(main, new Set(['shop.example'])))
 */
export const mergeStorage = (base: StorageState, add: StorageState): StorageState => {
  const cookies = new Map(base.cookies.map((c) => [cookieKey(c), c]))
  for (const c of add.cookies) cookies.set(cookieKey(c), c)
  const origins = new Map<string, OriginStorage>(base.origins.map((o) => [o.origin, o]))
  for (const o of add.origins) origins.set(o.origin, o)
  return { cookies: [...cookies.values()], origins: [...origins.values()] }
}

const browserFailure = (what: string) => (e: { readonly _tag: string; readonly reason: string }) =>
  new LendFailed({ reason: 'browser', message: `could not ${what} (${e._tag}: ${e.reason}); try again in a moment` })

const storeFailure = (what: string) => (e: { readonly _tag: string; readonly reason: string }) =>
  new LendFailed({ reason: 'store', message: `could not ${what} (${e._tag}: ${e.reason}); try again in a moment` })

/**
 * `move` on an open errand's context, with the rules every such move keeps: never on the main
 * context (`refusal` is the defect, callers check first), `undefined` when the context closed
 * meanwhile, and any other browser failure as `LendFailed` saying `what` could not be done.
 */
const inErrandContext = <E extends { readonly _tag: string; readonly reason: string }>(
  deps: MoveDeps,
  contextId: ContextId,
  refusal: string,
  what: string,
  move: () => Effect.Effect<Moved, E>,
): Effect.Effect<Moved | undefined, LendFailed> =>
  contextId === deps.runtime.mainContext
    ? Effect.dieMessage(refusal)
    : move().pipe(
        Effect.catchIf(
          (e) => e._tag === 'ContextNotFound',
          () => Effect.succeed(undefined),
        ),
        Effect.mapError(browserFailure(what)),
      )

/**
 * The main context's storage for `sites` — the only read of the main context lending does.
 *
 * @example
 * const lent = yield* mainStorageFor(runtime, new Set(['shop.example']))
 */
export const mainStorageFor = (
  runtime: RuntimeShape,
  sites: ReadonlySet<string>,
): Effect.Effect<StorageState, LendFailed> =>
  sites.size === 0
    ? Effect.succeed({ cookies: [], origins: [] })
    : runtime.storageState(runtime.mainContext).pipe(
        Effect.map((main) => storageForSites(main, sites)),
        Effect.mapError(browserFailure('read the sign-ins of your main browser')),
      )

/**
 * Adds `lent` cookies to an open errand context. localStorage cannot be written into a live
 * context through the `Runtime` seam (it has no such call), so only cookies are reported.
 * `undefined` when the context closed meanwhile. Refuses the main context (a defect: callers
 * check first).
 *
 * @example
 * yield* lendIntoContext(deps, 'task-1', contextId, lent)
 */
export const lendIntoContext = (
  deps: MoveDeps,
  conversationId: string,
  contextId: ContextId,
  lent: StorageState,
): Effect.Effect<Moved | undefined, LendFailed> =>
  inErrandContext(
    deps,
    contextId,
    'lending never writes to the main context',
    "add cookies to an errand's browser",
    () =>
      Effect.as(deps.runtime.addCookies(contextId, lent.cookies), {
        conversationId,
        where: 'open',
        cookies: cookieNames(lent.cookies),
        origins: [],
      }),
  )

/**
 * Lays `lent` over a parked errand's sealed record (unseal, merge, reseal) and adds `sites` to
 * its lent sites. `undefined` when the errand has no record.
 *
 * @example
 * yield* lendIntoRecord(deps, 'task-1', lent, ['shop.example'])
 */
export const lendIntoRecord = (
  deps: MoveDeps,
  conversationId: string,
  lent: StorageState,
  sites: ReadonlyArray<string>,
): Effect.Effect<{ readonly moved: Moved; readonly record: ParkedRecord } | undefined, LendFailed> =>
  deps.store
    .update(conversationId, (r) => ({
      ...r,
      lentSites: [...new Set([...r.lentSites, ...sites])].sort(),
      snapshot: { ...r.snapshot, storage: mergeStorage(r.snapshot.storage, lent) },
    }))
    .pipe(
      Effect.map(
        Option.match({
          onNone: () => undefined,
          onSome: (record) => ({
            moved: {
              conversationId,
              where: 'parked' as const,
              cookies: cookieNames(lent.cookies),
              origins: originSites(lent.origins),
            },
            record,
          }),
        }),
      ),
      Effect.mapError(storeFailure("update a set-aside errand's sealed session")),
    )

/**
 * Takes the cookies and localStorage of `reach` out of an open errand context. `undefined` when
 * the context closed meanwhile (its parked record, if any, is handled by the caller).
 *
 * @example
 * yield* takeFromContext(deps, 'task-1', contextId, 'all')
 */
export const takeFromContext = (
  deps: MoveDeps,
  conversationId: string,
  contextId: ContextId,
  reach: Reach,
): Effect.Effect<Moved | undefined, LendFailed> =>
  inErrandContext(
    deps,
    contextId,
    'take-backs never touch the main context',
    "take sign-ins back from an errand's browser",
    () =>
      Effect.gen(function* () {
        const { runtime } = deps
        const before = yield* runtime.storageState(contextId)
        const cookies = before.cookies.filter(cookieIn(reach))
        const origins = before.origins.filter((o) => originIn(reach)(o.origin))
        yield* runtime.removeCookies(contextId, cookieIn(reach))
        yield* runtime.clearOrigins(contextId, originIn(reach))
        return { conversationId, where: 'open', cookies: cookieNames(cookies), origins: originSites(origins) }
      }),
  )

/**
 * Takes the cookies and localStorage of `reach` out of a parked errand's sealed record and drops
 * `reach` from its lent sites; rewrites the record only when something changes. An unreadable
 * record is removed (it could not be cleaned, and would be dropped on resume anyway): `dropped`.
 *
 * @example
 * yield* takeFromRecord(deps, 'task-1', new Set(['shop.example']))
 */
export const takeFromRecord = (
  deps: MoveDeps,
  errandId: string,
  reach: Reach,
): Effect.Effect<Moved | 'dropped' | undefined, LendFailed> =>
  Effect.gen(function* () {
    const { store } = deps
    const found = yield* store.get(errandId)
    if (Option.isNone(found)) return undefined
    const record = found.value
    const storage = record.snapshot.storage
    const cookies = storage.cookies.filter(cookieIn(reach))
    const origins = storage.origins.filter((o) => originIn(reach)(o.origin))
    const lentSites = sitesWithout(record.lentSites, reach)
    if (cookies.length === 0 && origins.length === 0 && lentSites.length === record.lentSites.length) return undefined
    yield* store.update(errandId, (r) => ({
      ...r,
      lentSites: sitesWithout(r.lentSites, reach),
      snapshot: { ...r.snapshot, storage: storageWithout(r.snapshot.storage, reach) },
    }))
    return {
      conversationId: record.conversationId,
      where: 'parked',
      cookies: cookieNames(cookies),
      origins: originSites(origins),
    } satisfies Moved
  }).pipe(
    Effect.catchTag('RecordUnreadable', () => Effect.as(deps.store.remove(errandId), 'dropped' as const)),
    Effect.mapError(storeFailure("clean a set-aside errand's sealed session")),
  )
