/**
 * One soak session's random work over the host's HTTP API — sign in, basket, localStorage, tabs,
 * a lent site, park, resume, task done — with a check of what it holds after every park the host
 * acknowledged (exact) and after every crash (only values of its own history).
 *
 * Every choice comes from the session's own seeded PRNG, so the op sequence of a session is the
 * same in a replay (timing is not).
 *
 * @example
 * await runSession(world, new SessionModel('s1'), prng(seed))
 */
import type { Reply } from './host.ts'
import { parseShow, type SessionModel, type Held } from './model.ts'
import type { World } from './world.ts'

/** The ops a session chooses from, with their weights. */
const OPS: ReadonlyArray<readonly [op: string, weight: number]> = [
  ['signin', 10],
  ['add', 14],
  ['store', 10],
  ['browse', 10],
  ['text', 12],
  ['check', 10],
  ['tab-open', 6],
  ['tab-close', 4],
  ['tab-activate', 4],
  ['park', 7],
  ['done', 2],
  ['lend', 4],
  ['revoke', 1],
]
const TOTAL = OPS.reduce((n, [, w]) => n + w, 0)

const pick = (random: () => number): string => {
  let r = random() * TOTAL
  for (const [op, w] of OPS) {
    r -= w
    if (r < 0) return op
  }
  return 'text'
}

/** A URL as the journal keeps it: its host and path (the fixture sites' tags ride in the query). */
const placeOf = (url: unknown): string | undefined => {
  if (typeof url !== 'string') return undefined
  try {
    const u = new URL(url)
    return `${u.host}${u.pathname}`
  } catch {
    return url.slice(0, 80)
  }
}

/** Statuses that mean "nothing happened, try later" (the host is down, starting or full). */
const refused = (r: Reply) =>
  r.status === 0 ||
  (r.status === 503 && ['AllBusy', 'HostUnavailable', 'ErrandUnavailable'].includes(r.body?.error?.code))

/** The tabs a session believes it has: public id → URL, and the active one. */
interface Tabs {
  map: Map<string, string>
  active: string | undefined
}

const urlsOf = (tabs: Tabs) => [...tabs.map.values()].sort()

const syncTabs = (tabs: Tabs, list: ReadonlyArray<{ id: string; url: string; active: boolean }>) => {
  tabs.map = new Map(list.filter((t) => t.url !== 'about:blank').map((t) => [t.id, t.url]))
  tabs.active = list.find((t) => t.active)?.id
}

/**
 * Runs one session until the world stops.
 *
 * @example
 * void runSession(world, model, prng(7))
 */
export const runSession = async (w: World, s: SessionModel, random: () => number): Promise<void> => {
  const tabs: Tabs = { map: new Map(), active: undefined }
  let n = 0
  const tag = () => `${s.tag}.${++n}`
  const call = async (op: string, method: string, path: string, body?: unknown) => {
    const r = await w.call(s.key, method, path, body)
    w.journal.write({
      kind: 'req',
      session: s.key,
      op,
      method,
      path,
      status: r.status,
      code: r.body?.error?.code,
      lifecycle: r.body?.lifecycle,
      // Which tab a verb drove and where it was (a page verb's summary, a read's URL): a read of another tab
      // than the one just navigated shows in the journal as such.
      tab: r.body?.tab,
      at: placeOf(r.body?.url),
      ms: Math.round(r.ms),
    })
    return r
  }
  const navigate = async (op: string, host: string, path: string, reqTag = tag()) => {
    if (host === 'bank.example') w.lentAt(reqTag, s)
    const url = w.sites.url(host, path, reqTag)
    s.attempt({ tabs: [url] })
    const epoch = w.epoch
    const r = await call(op, 'POST', '/v1/navigate', { url })
    if (r.status === 200) {
      w.latency('/v1/navigate', r.ms)
      if (!tabs.map.has(r.body.tab) && tabs.active !== r.body.tab) {
        // A tab id this session never saw: its errand was reopened meanwhile (parked to make room
        // for another, C2) and its tabs have new ids; the listing is the truth. (Without this the
        // model kept the old id beside the new one: a false state-lost, 60-minute run.)
        const listed = await call(op, 'GET', '/v1/tabs')
        if (listed.status === 200) syncTabs(tabs, listed.body.tabs)
        else s.uncertain = true
      }
      tabs.map.set(r.body.tab, r.body.url)
      tabs.active = r.body.tab
      if (w.epoch === epoch && !s.uncertain) s.set({ tabs: urlsOf(tabs) })
    }
    return r
  }
  /** Refused (full, or the host is down): a client waits a moment and tries again. */
  const backOff = async () => {
    w.stats.refused++
    await w.waitForHost()
    await w.think(random, 200, 1200)
  }

  let lastShown = ''
  /** What the session shows: its tabs (before /show moves the active one), then cookies and storage on shop.example. */
  const look = async (): Promise<Held | 'refused' | 'refused-first' | string> => {
    const listed = await call('look', 'GET', '/v1/tabs')
    if (refused(listed)) return 'refused-first'
    if (listed.status !== 200) return `GET /v1/tabs ${listed.status} ${listed.body?.error?.code}`
    syncTabs(tabs, listed.body.tabs)
    const before = urlsOf(tabs)
    const shown = await navigate('look', 'shop.example', '/show')
    if (refused(shown)) return 'refused'
    if (shown.status !== 200) return `navigate /show ${shown.status} ${shown.body?.error?.code}`
    const text = await call('look', 'GET', '/v1/text')
    if (refused(text)) return 'refused'
    if (text.status !== 200) return `GET /v1/text ${text.status} ${text.body?.error?.code}`
    // The read must be of the page just navigated: the engine never moves an agent's active tab between two of its
    // verbs by itself (not when it parks and resumes the errand between them, either).
    if (placeOf(text.body.url) !== placeOf(shown.body.url))
      w.violation(
        'read-other-tab',
        s.key,
        `navigated tab ${shown.body.tab} to ${placeOf(shown.body.url)}; the next read answered from ` +
          `${placeOf(text.body.url)}`,
      )
    w.latency('/v1/text', text.ms)
    const parsed = parseShow(String(text.body.text))
    if (parsed === undefined) return `unreadable /show text`
    lastShown = String(text.body.text).slice(0, 400)
    return { sid: parsed.cookies.sid, basket: parsed.cookies.basket, local: parsed.local, tabs: before }
  }

  /** After an acknowledged park (exact) or a crash (its own history only). */
  const check = async (why: 'resume' | 'heal' | 'check') => {
    const epoch = w.epoch
    const expected = s.held
    // The look itself resumes the errand: from here on it is open, and what it does is no longer
    // in the sealed record (a host kill now brings back the record, not what the look did).
    s.parkedAcked = false
    const seen = await look()
    if (seen === 'refused-first') {
      // Refused before anything touched it: still parked as acknowledged.
      if (why === 'resume') s.parkedAcked = true
      return backOff()
    }
    if (seen === 'refused') return backOff()
    if (w.epoch !== epoch || typeof seen === 'string') {
      // Chaos struck during the look (or the page crashed under it): what it saw proves nothing.
      if (typeof seen === 'string') w.journal.write({ kind: 'look-failed', session: s.key, why: seen })
      s.uncertain = true
      s.parkedAcked = false
      return
    }
    if (why === 'heal') {
      const foreign = s.foreign(seen)
      w.stats.healChecks++
      if (foreign.length > 0) w.violation('heal-foreign', s.key, foreign.join('; '))
      s.adopt(seen)
    } else {
      const diff = s.compare(seen, expected)
      if (why === 'resume') w.stats.resumesChecked++
      else w.stats.checks++
      if (diff.length > 0)
        w.violation(
          why === 'resume' ? 'park-not-exact' : 'state-lost',
          s.key,
          `${diff.join('; ')} (the page showed: ${lastShown})`,
        )
      else if (why === 'resume') w.stats.resumesExact++
      s.adopt(seen)
    }
    s.parkedAcked = false
    // /show moved the active tab; the model follows. After a heal the tabs are read again: the
    // list the look began with can come from a context that was already dead (a browser SIGKILL
    // the host had not noticed yet), not from the one the heal reopened (30-minute run, s3).
    s.set({ tabs: urlsOf(tabs) })
    if (why === 'heal' && w.epoch === epoch) await resync('look')
    // After a resume, the lent sign-in on the wire: there after Allow, gone after a revoke,
    // whatever happened to the sealed record while it was parked (L5).
    if (why === 'resume') await navigate('look', 'bank.example', '/show')
  }

  /** A mutating call: applied to the model when it succeeded with no chaos under it. */
  const mutate = async (run: () => Promise<Reply>, apply: () => void) => {
    const epoch = w.epoch
    const r = await run()
    if (refused(r)) return backOff()
    if (r.status !== 200 || w.epoch !== epoch) {
      if (r.status >= 500 && !refused(r))
        w.journal.write({ kind: 'error', session: s.key, status: r.status, code: r.body?.error?.code })
      s.uncertain = true
      return
    }
    apply()
  }

  while (!w.stopping) {
    await w.gate()
    if (w.stopping) break
    if (s.parkedAcked) {
      await check('resume')
      continue
    }
    if (s.uncertain) {
      await check('heal')
      continue
    }
    const op = pick(random)
    w.journal.write({ kind: 'op', session: s.key, op })
    switch (op) {
      case 'signin': {
        const value = `${s.tag}.${n + 1}`
        s.attempt({ sid: value })
        await mutate(
          () => navigate(op, 'shop.example', `/signin?n=sid&v=${value}`),
          () => s.set({ sid: value, tabs: urlsOf(tabs) }),
        )
        break
      }
      case 'add': {
        const reqTag = tag()
        const item = `i${Math.floor(random() * 1000)}`
        const expected = s.held.basket
        let applied = false
        await mutate(
          () => navigate(op, 'shop.example', `/add?item=${item}`, reqTag),
          () => {
            applied = true
            const set = w.sites.basketSet(reqTag)
            const before = set?.slice(0, set.length - item.length - 1)
            // The server built the new basket from the Cookie header it received: that header is the
            // session's jar on the wire, and it must be what the model holds.
            if (set === undefined || before !== (expected ?? s.tag))
              w.violation('basket-lost', s.key, `wire ${before} ≠ model ${expected}`)
            s.set({ basket: set ?? `${expected ?? s.tag}.${item}`, tabs: urlsOf(tabs) })
          },
        )
        // An answer lost to chaos: the server may still have set a basket, which a snapshot may hold.
        if (!applied) s.attempt({ basket: w.sites.basketSet(reqTag) })
        break
      }
      case 'store': {
        const k = `k${Math.floor(random() * 4)}`
        const v = `${s.tag}.${n + 1}`
        s.attempt({ local: { [k]: v } })
        await mutate(
          () => navigate(op, 'shop.example', `/store?k=${k}&v=${v}`),
          () => s.set({ local: { ...s.held.local, [k]: v }, tabs: urlsOf(tabs) }),
        )
        break
      }
      case 'browse':
        await mutate(
          () => navigate(op, 'news.example', `/page?t=p${Math.floor(random() * 100)}`),
          () => s.set({ tabs: urlsOf(tabs) }),
        )
        break
      case 'text': {
        const r = await call(op, 'GET', '/v1/text')
        if (refused(r)) await backOff()
        else if (r.status === 200) w.latency('/v1/text', r.ms)
        break
      }
      case 'check':
        await check('check')
        break
      case 'tab-open': {
        if (tabs.map.size >= 4) break
        const reqTag = tag()
        const url = w.sites.url('news.example', `/page?t=tab${n}`, reqTag)
        s.attempt({ tabs: [url] })
        await mutate(
          () => call(op, 'POST', '/v1/tabs', { url }),
          () => {},
        )
        await resync(op)
        break
      }
      case 'tab-close': {
        const other = [...tabs.map.keys()].filter((id) => id !== tabs.active)
        if (other.length === 0) break
        const id = other[Math.floor(random() * other.length)]!
        await mutate(
          () => call(op, 'DELETE', `/v1/tabs/${id}`),
          () => {},
        )
        await resync(op)
        break
      }
      case 'tab-activate': {
        const ids = [...tabs.map.keys()]
        if (ids.length < 2) break
        const id = ids[Math.floor(random() * ids.length)]!
        await mutate(
          () => call(op, 'POST', `/v1/tabs/${id}/activate`),
          () => {},
        )
        await resync(op)
        break
      }
      case 'park': {
        const epoch = w.epoch
        const r = await call(op, 'POST', '/v1/session/task', { status: 'interrupted' })
        if (refused(r)) {
          if (r.status === 0) s.uncertain = true
          await backOff()
        } else if (r.status === 200 && r.body.lifecycle === 'parked') {
          // Exact only when nothing struck since the model was last certain: a chaos event just
          // before the park (after the loop's check) parks what the heal brought back, which is
          // the last snapshot (H2), not the model. (That was the "tab one navigation old" shape.)
          if (w.epoch === epoch && !s.uncertain) {
            s.parkedAcked = true
            w.stats.parksAcked++
          } else s.uncertain = true
        } else if (r.status === 200)
          w.stats.parksRefused++ // e.g. a full disk: the errand stays open, as it was
        else if (r.status !== 404) s.uncertain = true
        break
      }
      case 'done': {
        const r = await call(op, 'POST', '/v1/session/task', { status: 'done' })
        if (refused(r)) {
          if (r.status === 0) s.uncertain = true
          await backOff()
        } else if (r.status === 200 && r.body.lifecycle !== 'closed' && r.body.lifecycle !== 'main') {
          // ('main': the key never had a browser of its own — nothing to forget.)
          // E3: done closes and forgets; an errand left open is a broken promise (and keeps its cookies).
          w.violation('done-not-closed', s.key, `task done answered 200 with lifecycle ${r.body.lifecycle}`)
          s.uncertain = true
        } else if (r.status === 200 || r.status === 404) {
          s.forget()
          tabs.map.clear()
          tabs.active = undefined
          w.stats.sessions++
        } else s.uncertain = true
        break
      }
      case 'lend':
        await w.lend(s)
        await navigate(op, 'bank.example', '/show')
        break
      case 'revoke':
        await w.revoke()
        await navigate(op, 'bank.example', '/show')
        break
    }
    await w.think(random)
  }

  /**
   * The tabs after a tab verb, from the listing. A listing refused (the errand parked to make room
   * between the verb and it) leaves the model not knowing what the verb did: uncertain, so the
   * next park is not taken as exact (CI: a tab opened, the listing answered AllBusy, the park was
   * acknowledged and the resume showed the tab the model never had: a false park-not-exact).
   */
  async function resync(op: string) {
    const listed = await call(op, 'GET', '/v1/tabs')
    if (listed.status === 200) {
      syncTabs(tabs, listed.body.tabs)
      if (!s.uncertain) s.set({ tabs: urlsOf(tabs) })
    } else s.uncertain = true
  }
}
