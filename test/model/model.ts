/**
 * The model: a plain description of who should see what. No engine, no browser — data and the
 * functions that say how each step changes it. The model-based suite (`engine.test.ts`) runs the
 * same steps on the real engine and compares what Chromium holds with this.
 *
 * Per errand: its state, and what it should hold — cookies and localStorage per site (as
 * `name → value`), its tabs' URLs, and when it was last used (for least-recently-used parking).
 *
 * @example
 * const m = initialModel({ cap: 2, always: ['shop.example'], main: { 'shop.example': { sid: 'S' } } })
 * openErrand(m, 't0')       // seeded: { 'shop.example': { sid: 'S' } }, one blank tab
 * m.errands['t0']!.state    // 'open'
 */

/** name → value. @example const j: Jar = { k: 't0.3' } */
export type Jar = Record<string, string>
/** site → name → value. @example const b: BySite = { 'shop.example': { sid: 'S' } } */
export type BySite = Record<string, Jar>

/**
 * - `open`: holds a context; should hold exactly `cookies`, `storage`, `tabs`.
 * - `parked`: sealed at rest; its record should hold exactly that.
 * - `crashed`: its context died; it should come back with exactly that (its last snapshot).
 * - `closed`: forgotten: no context, no record.
 *
 * @example
 * const s: ErrandState = 'parked'
 */
export type ErrandState = 'open' | 'parked' | 'crashed' | 'closed'

/** What one errand should hold. @example const e: ErrandModel = emptyErrand() */
export interface ErrandModel {
  state: ErrandState
  cookies: BySite
  storage: BySite
  /** URLs of its tabs (order is not judged: Chromium's page order is its own). */
  tabs: string[]
  /** Sites whose sign-ins it holds lent now: seeded always-allowed ones and allowed ones, minus revoked (E6). */
  lent: string[]
  /** Model tick of the last use that the supervisor counts (spawn, drive, resume, heal). */
  lastUsed: number
}

/** The whole world as it should be. @example const m = initialModel({ cap: 2, always: [], main: {} }) */
export interface Model {
  readonly cap: number
  errands: Record<string, ErrandModel>
  /** Always-allowed sites (seeded into every new errand, L1). */
  always: string[]
  /** The person's sign-ins in the main context; never changes (L4). */
  readonly main: BySite
  /** Counts steps: values and URLs are made from it, so a replay makes the same ones. */
  seq: number
  /** Ticks of uses, for LRU. */
  tick: number
}

/** URL of a blank tab. @example e.tabs = [BLANK] */
export const BLANK = 'about:blank'

/** An errand that holds nothing. @example emptyErrand('closed') */
export const emptyErrand = (state: ErrandState = 'closed'): ErrandModel => ({
  state,
  cookies: {},
  storage: {},
  tabs: [],
  lent: [],
  lastUsed: 0,
})

/**
 * The model at the start of a run.
 *
 * @example
 * initialModel({ cap: 2, always: ['shop.example'], main: { 'shop.example': { sid: 'S' } } })
 */
export const initialModel = (init: {
  readonly cap: number
  readonly always: ReadonlyArray<string>
  readonly main: BySite
}): Model => ({
  cap: init.cap,
  errands: {},
  always: [...init.always],
  main: clone(init.main),
  seq: 0,
  tick: 0,
})

/** A deep copy of plain data. @example clone({ a: { b: 'c' } }) */
export const clone = <T>(value: T): T => structuredClone(value)

/** The errand's model (a closed one when it was never opened). @example errandOf(m, 't0').state */
export const errandOf = (m: Model, id: string): ErrandModel => (m.errands[id] ??= emptyErrand())

/** Ids of errands in a state. @example idsIn(m, 'open') */
export const idsIn = (m: Model, state: ErrandState): string[] =>
  Object.keys(m.errands)
    .filter((id) => m.errands[id]!.state === state)
    .sort()

/** Whether the errand can be driven (it exists: open, parked or crashed). @example isLive(m, 't0') */
export const isLive = (m: Model, id: string): boolean => errandOf(m, id).state !== 'closed'

/** A fresh value for `id`: its owner is readable from it (`t1.17`). @example freshValue(m, 't1') */
export const freshValue = (m: Model, id: string): string => `${id}.${++m.seq}`

/**
 * The owner of a value made by {@link freshValue}, or undefined for anything else. @example ownerOf('t1.17') // 't1'
 */
export const ownerOf = (value: string): string | undefined => /^(t\d+)\.\d+$/.exec(value)?.[1]

/** Marks a use the supervisor counts for LRU. @example touch(m, 't0') */
export const touch = (m: Model, id: string): void => {
  errandOf(m, id).lastUsed = ++m.tick
}

/**
 * Makes room for one more open errand (C2): when `cap` errands are open, the least recently
 * used one (nobody drives or watches errands between steps) is parked, losing nothing.
 * Returns the id it parked.
 *
 * @example
 * const parked = makeRoom(m, 't3')
 */
export const makeRoom = (m: Model, forId: string): string | undefined => {
  const open = idsIn(m, 'open').filter((id) => id !== forId)
  if (open.length < m.cap) return undefined
  const victim = open.sort((a, b) => m.errands[a]!.lastUsed - m.errands[b]!.lastUsed || (a < b ? -1 : 1))[0]!
  m.errands[victim]!.state = 'parked'
  return victim
}

/** A context opened from what an errand holds: with no tabs, Chromium shows one blank tab. */
const reopen = (e: ErrandModel): void => {
  e.state = 'open'
  if (e.tabs.length === 0) e.tabs = [BLANK]
}

/**
 * Brings the errand to `open` the way the supervisor does on a use: a closed one is seeded with
 * the always-allowed sites' sign-ins (L1), a parked one resumed (E4), a crashed one healed from
 * its last snapshot (H2) — each through admission, which may park the LRU one. Returns the id
 * parked to make room, if any.
 *
 * @example
 * openErrand(m, 't0')
 */
export const openErrand = (m: Model, id: string): string | undefined => {
  const e = errandOf(m, id)
  if (e.state === 'open') return undefined
  const parked = makeRoom(m, id)
  if (e.state === 'closed') {
    const seeded = emptyErrand('open')
    for (const site of m.always) if (m.main[site] !== undefined) seeded.cookies[site] = { ...m.main[site] }
    seeded.lent = [...m.always]
    m.errands[id] = seeded
  }
  reopen(m.errands[id]!)
  touch(m, id)
  return parked
}

/** Sets `name=value` for `site` in a jar-by-site. @example put(e.cookies, 'shop.example', 'k', 'v') */
export const put = (bySite: BySite, site: string, name: string, value: string): void => {
  bySite[site] = { ...bySite[site], [name]: value }
}

/** Drops a site from what an errand holds (revoke, L5). @example dropSite(e, 'shop.example') */
export const dropSite = (e: ErrandModel, site: string): void => {
  delete e.cookies[site]
  delete e.storage[site]
}

/**
 * The person pressed Allow for `site` in this errand: the main context's cookies for the site
 * are laid over the errand's (open or parked; a crashed one is healed first). Main holds no
 * localStorage in this suite, so only cookies move.
 *
 * @example
 * allowSite(m, 't0', 'mail.example')
 */
export const allowSite = (m: Model, id: string, site: string): void => {
  const e = errandOf(m, id)
  if (e.state === 'crashed') openErrand(m, id)
  else if (e.state === 'open') touch(m, id)
  const e2 = m.errands[id]!
  const main = m.main[site]
  if (main !== undefined) e2.cookies[site] = { ...e2.cookies[site], ...main }
  if (!e2.lent.includes(site)) e2.lent = [...e2.lent, site].sort()
}

/**
 * Revokes a site: no longer always allowed, and taken back from every errand — open, parked or
 * crashed — whether it was seeded, allowed or signed into by the errand itself (L5).
 *
 * @example
 * revokeSite(m, 'shop.example')
 */
export const revokeSite = (m: Model, site: string): void => {
  m.always = m.always.filter((s) => s !== site)
  for (const e of Object.values(m.errands)) {
    if (e.state === 'closed') continue
    dropSite(e, site)
    e.lent = e.lent.filter((s) => s !== site)
  }
}

/** "Sign out of every site": every errand's cookies and storage go; tabs stay (L5). @example signOutAll(m) */
export const signOutAll = (m: Model): void => {
  for (const e of Object.values(m.errands)) {
    if (e.state === 'closed') continue
    e.cookies = {}
    e.storage = {}
    e.lent = []
  }
}

/** Ends an errand (E3): forgotten. @example closeErrand(m, 't0') */
export const closeErrand = (m: Model, id: string): void => {
  m.errands[id] = emptyErrand('closed')
}

/**
 * An engine restart (E5): every open errand is parked as it is, every crashed one from its last
 * snapshot (which the model already holds for it).
 *
 * @example
 * restartAll(m)
 */
export const restartAll = (m: Model): void => {
  for (const e of Object.values(m.errands)) if (e.state === 'open' || e.state === 'crashed') e.state = 'parked'
}

/** Sorted copy, for comparing tab lists as multisets. @example sorted(['b', 'a']) // ['a', 'b'] */
export const sorted = (xs: ReadonlyArray<string>): string[] => [...xs].sort()

/** Sites with nothing in them are no different from absent ones. @example normal({ a: {} }) // {} */
export const normal = (bySite: BySite): BySite =>
  Object.fromEntries(
    Object.entries(bySite)
      .filter(([, jar]) => Object.keys(jar).length > 0)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  )

/**
 * What a snapshot or a sealed record holds, in the model's terms. @example const h: Held = { cookies: {}, storage: {},
 * tabs: [] }
 */
export interface Held {
  readonly cookies: BySite
  readonly storage: BySite
  readonly tabs: ReadonlyArray<string>
}

/**
 * Sites taken back since a snapshot was taken: some, or all (sign-out). @example const r: Reach = new
 * Set(['shop.example'])
 */
export type Reach = ReadonlySet<string> | 'all'

/**
 * The errand's context died (H2): it will come back with what its last snapshot held — except
 * that sites taken back after that snapshot was taken stay taken back, and those of them the
 * errand holds lent now are lent again (L5, docs/lending.md "Stale snapshots").
 *
 * @example
 * crashTo(m, 't0', { cookies: {}, storage: {}, tabs: ['about:blank'] }, undefined)
 */
export const crashTo = (
  m: Model,
  id: string,
  held: Held,
  stale: Reach | undefined,
  state: 'crashed' | 'parked' = 'crashed',
): void => {
  const e = errandOf(m, id)
  e.state = state
  e.cookies = clone(held.cookies)
  e.storage = clone(held.storage)
  e.tabs = [...held.tabs]
  if (stale === undefined) return
  const reached = (site: string) => stale === 'all' || stale.has(site)
  for (const site of new Set([...Object.keys(e.cookies), ...Object.keys(e.storage)]))
    if (reached(site)) dropSite(e, site)
  for (const site of e.lent) if (reached(site) && m.main[site] !== undefined) e.cookies[site] = { ...m.main[site] }
}
