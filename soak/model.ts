/**
 * What one soak session should hold — its sign-in, basket, localStorage and tabs — and every
 * value it ever held in its current generation (a generation ends with "task done"). After a
 * park the host acknowledged, the session must come back exactly as the model says; after a
 * crash it heals from a snapshot a little older, so there it must show values of its own history
 * and nothing else.
 *
 * @example
 * const m = new SessionModel('s1')
 * m.set({ sid: m.tag + '.1' })
 * m.compare({ sid: 's1~0.1', basket: undefined, local: {}, tabs: [] }) // []
 */

/** A session's observable state. */
export interface Held {
  readonly sid: string | undefined
  readonly basket: string | undefined
  readonly local: Readonly<Record<string, string>>
  /** Tab URLs, sorted (about:blank left out). */
  readonly tabs: ReadonlyArray<string>
}

const empty: Held = { sid: undefined, basket: undefined, local: {}, tabs: [] }

/**
 * The model of one session.
 *
 * @example
 * new SessionModel('s1').tag // 's1~0'
 */
export class SessionModel {
  generation = 0
  held: Held = empty
  private history = {
    sid: new Set<string>(),
    basket: new Set<string>(),
    local: new Set<string>(),
    tabs: new Set<string>(),
  }
  /** Set when something may have rolled the session back (a crash, a host kill): a heal check is due. */
  uncertain = false
  /** The host answered `{lifecycle: 'parked'}` and nothing has touched the session since. */
  parkedAcked = false
  /**
   * Whether bank.example is lent to this session: 'yes' after Allow was acknowledged, 'no' after a revoke, 'unknown'
   * in between.
   */
  lent: 'yes' | 'no' | 'unknown' = 'no'

  constructor(readonly key: string) {}

  /** The owner tag every value of this generation starts with. */
  get tag(): string {
    return `${this.key}~${this.generation}`
  }

  set(change: Partial<Held>): void {
    this.held = { ...this.held, ...change, tabs: [...(change.tabs ?? this.held.tabs)].sort() }
    this.remember(this.held)
  }

  private remember(h: Held): void {
    if (h.sid !== undefined) this.history.sid.add(h.sid)
    if (h.basket !== undefined) this.history.basket.add(h.basket)
    for (const [k, v] of Object.entries(h.local)) this.history.local.add(`${k}:${v}`)
    for (const t of h.tabs) this.history.tabs.add(t)
  }

  /** A value the driver asked for (it may be in a snapshot even when the answer was lost). */
  attempt(change: Partial<Held>): void {
    this.remember({ ...this.held, ...change, tabs: change.tabs ?? [] })
  }

  /** A new generation after "task done": nothing of the old one may come back. */
  forget(): void {
    this.generation++
    this.held = empty
    this.history = { sid: new Set(), basket: new Set(), local: new Set(), tabs: new Set() }
    this.uncertain = false
    this.parkedAcked = false
    this.lent = 'no'
  }

  /** Differences between what the session shows and the model (empty: exact). */
  compare(seen: Held, h: Held = this.held): string[] {
    const out: string[] = []
    if (seen.sid !== h.sid) out.push(`sid ${seen.sid} ≠ ${h.sid}`)
    if (seen.basket !== h.basket) out.push(`basket ${seen.basket} ≠ ${h.basket}`)
    const a = JSON.stringify(Object.entries(seen.local).sort())
    const b = JSON.stringify(Object.entries(h.local).sort())
    if (a !== b) out.push(`localStorage ${a} ≠ ${b}`)
    const ta = JSON.stringify([...seen.tabs].sort())
    const tb = JSON.stringify(h.tabs)
    if (ta !== tb) out.push(`tabs ${ta} ≠ ${tb}`)
    return out
  }

  /** Values the session shows that it never held in this generation (empty: a plausible heal). */
  foreign(seen: Held): string[] {
    const out: string[] = []
    if (seen.sid !== undefined && !this.history.sid.has(seen.sid)) out.push(`sid ${seen.sid}`)
    if (seen.basket !== undefined && !this.history.basket.has(seen.basket)) out.push(`basket ${seen.basket}`)
    for (const [k, v] of Object.entries(seen.local))
      if (!this.history.local.has(`${k}:${v}`)) out.push(`localStorage ${k}:${v}`)
    for (const t of seen.tabs) if (!this.history.tabs.has(t)) out.push(`tab ${t}`)
    return out
  }

  /** After a heal check: what the session shows is the model from now on. */
  adopt(seen: Held): void {
    this.held = { ...seen, tabs: [...seen.tabs].sort() }
    this.remember(this.held)
    this.uncertain = false
  }
}

/**
 * Reads `cookie=<header> local=<k:v,…>` (the fixture's `/show` text) into cookies and localStorage.
 *
 * @example
 * parseShow('cookie=sid=a; basket=b local=k1:v') // { cookies: { sid: 'a', basket: 'b' }, local: { k1: 'v' } }
 */
export const parseShow = (
  text: string,
): { cookies: Record<string, string>; local: Record<string, string> } | undefined => {
  const m = /cookie=(.*?) local=(.*)/s.exec(text)
  if (!m) return undefined
  const cookies: Record<string, string> = {}
  for (const part of m[1]!
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const i = part.indexOf('=')
    cookies[part.slice(0, i)] = decodeURIComponent(part.slice(i + 1))
  }
  const local: Record<string, string> = {}
  for (const item of m[2]!
    .trim()
    .split(',')
    .filter((p) => p !== '')) {
    const i = item.indexOf(':')
    local[item.slice(0, i)] = item.slice(i + 1)
  }
  return { cookies, local }
}
