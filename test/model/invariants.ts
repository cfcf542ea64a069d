/**
 * The invariants, checked after every step against what Chromium and the disk really hold —
 * cookies from the Playwright `BrowserContext`, localStorage read by the errand's own pages,
 * tabs from the context's pages, parked errands from their sealed files — never from the
 * engine's bookkeeping (which is used only to find an errand's context).
 *
 * @example
 * await verify(sys, model) // throws InvariantBroken listing every violation
 */
import { isDeepStrictEqual } from 'node:util'
import { Option } from 'effect'
import type { BrowserContext, Page } from 'playwright-core'
import { emptyErrand, errandOf, idsIn, normal, ownerOf, sorted, type BySite, type Model } from './model.ts'
import { IDS } from './steps.ts'
import { cookiesBySite, fixtureHost, heldIn, type ModelSystem } from './system.ts'

/**
 * One or more invariants did not hold; `problems` says which, in words. @example new InvariantBroken(["t1's context
 * holds t0's k@shop.example (cookie)"])
 */
export class InvariantBroken extends Error {
  override readonly name = 'InvariantBroken'
  constructor(readonly problems: ReadonlyArray<string>) {
    super(`invariants broken:\n  - ${problems.join('\n  - ')}`)
  }
}

const show = (value: unknown) => JSON.stringify(value)

/** Values in `bySite` made by another errand than `id` (lent sign-ins are the server's secrets, never an errand's). */
const foreign = (id: string, bySite: BySite): string[] =>
  Object.entries(bySite).flatMap(([site, jar]) =>
    Object.entries(jar).flatMap(([name, value]) => {
      const owner = ownerOf(value)
      return owner !== undefined && owner !== id ? [`${owner}'s ${name}@${site}`] : []
    }),
  )

/** The tab URLs that belong to another errand (every fixture URL names its errand in `o=`). */
const foreignTabs = (id: string, urls: ReadonlyArray<string>): string[] =>
  urls.filter((url) => {
    const host = fixtureHost(url)
    const owner = host === undefined ? null : new URL(url).searchParams.get('o')
    return owner !== null && owner !== id
  })

/** localStorage of every fixture site the errand's pages show, read by the pages themselves. */
const storageSeenByPages = async (pages: ReadonlyArray<Page>): Promise<BySite> => {
  const byHost = new Map<string, Page>()
  for (const page of pages) {
    const host = fixtureHost(page.url())
    if (host !== undefined && !byHost.has(host)) byHost.set(host, page)
  }
  const out: BySite = {}
  for (const [host, page] of byHost) {
    out[host] = await page.evaluate(() =>
      Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage.getItem(k) ?? ''])),
    )
  }
  return out
}

/**
 * Checks every invariant; throws {@link InvariantBroken} with all violations found.
 *
 * - isolation: no errand holds another's cookies, localStorage or tabs, and no two share a
 *   context or a page (T3);
 * - exactness: each open errand's context, each parked errand's sealed record holds exactly what
 *   the model says — so park → resume, crash → heal and restart are lossless up to the last
 *   snapshot, and a revoked site is gone from every errand, open or parked (L5, E4, E5, H2);
 * - the errands' Chromium holds as many contexts as errands are open, never more than the cap (C1, C2);
 * - the store holds a record for each parked errand (checked above), none for a closed one —
 *   a closed errand leaves nothing (E3); an open or crashed one may keep the record it was
 *   resumed from;
 * - the person's main context is exactly as signed in at the start (L4).
 *
 * @example
 * await verify(sys, model)
 */
export const verify = async (sys: ModelSystem, m: Model): Promise<void> => {
  await sys.settle()
  const problems: string[] = []
  const views = new Map((await sys.run(sys.supervisor.list)).map((v) => [v.conversationId, v]))
  const contexts = new Map<BrowserContext, string>()
  const pagesSeen = new Map<Page, string>()

  for (const id of IDS) {
    const e = m.errands[id] ?? emptyErrand()
    const live = sys.contextOf(id)
    const detail = views.get(id)?.detail ?? 'unknown'
    if (e.state !== 'open') {
      if (live !== undefined)
        problems.push(`${id} should be ${e.state} but holds context ${live.contextId} (engine: ${detail})`)
      if (e.state === 'crashed' && !detail.startsWith('healing'))
        problems.push(`${id} should be waiting to heal, engine: ${detail}`)
      const record = await sys.record(id)
      if (e.state === 'parked') {
        if (Option.isNone(record)) {
          problems.push(`${id} should be parked but has no sealed record (engine: ${detail})`)
          continue
        }
        const held = heldIn(record.value.snapshot)
        for (const f of foreign(id, held.cookies)) problems.push(`${id}'s sealed record holds ${f} (cookie)`)
        for (const f of foreign(id, held.storage)) problems.push(`${id}'s sealed record holds ${f} (localStorage)`)
        for (const url of foreignTabs(id, held.tabs))
          problems.push(`${id}'s sealed record holds another errand's tab ${url}`)
        if (!isDeepStrictEqual(normal(held.cookies), normal(e.cookies)))
          problems.push(`${id} parked: record cookies ${show(normal(held.cookies))}, model ${show(normal(e.cookies))}`)
        if (!isDeepStrictEqual(normal(held.storage), normal(e.storage)))
          problems.push(
            `${id} parked: record localStorage ${show(normal(held.storage))}, model ${show(normal(e.storage))}`,
          )
        if (!isDeepStrictEqual(sorted(held.tabs), sorted(e.tabs)))
          problems.push(`${id} parked: record tabs ${show(sorted(held.tabs))}, model ${show(sorted(e.tabs))}`)
      } else if (e.state === 'closed' && Option.isSome(record)) {
        problems.push(`${id} is closed but the store still holds a sealed record for it`)
      }
      continue
    }

    if (live === undefined) {
      problems.push(`${id} should be open but holds no context (engine: ${detail})`)
      continue
    }
    // A resumed errand may keep the record it was resumed from until it is parked again or closed
    // (so an engine killed meanwhile loses nothing); what it holds must still be its own.
    const kept = await sys.record(id)
    if (Option.isSome(kept)) {
      const held = heldIn(kept.value.snapshot)
      for (const f of [...foreign(id, held.cookies), ...foreign(id, held.storage)])
        problems.push(`${id}'s kept record holds ${f}`)
    }
    const sharer = contexts.get(live.context)
    if (sharer !== undefined) problems.push(`${id} and ${sharer} share one browser context`)
    contexts.set(live.context, id)
    // The runtime's own pages (a storage read visiting origins) are pages of the context while
    // they live, never tabs: a snapshot taken in the background may be reading right now.
    const pages = live.context.pages().filter((p) => !p.isClosed() && !sys.chromium.isOwnPage(p))
    for (const page of pages) {
      const other = pagesSeen.get(page)
      if (other !== undefined) problems.push(`${id} and ${other} share a tab (${page.url()})`)
      pagesSeen.set(page, id)
    }
    const urls = pages.map((p) => p.url())
    for (const url of foreignTabs(id, urls)) problems.push(`${id} shows another errand's tab ${url}`)
    if (!isDeepStrictEqual(sorted(urls), sorted(e.tabs)))
      problems.push(`${id} open: Chromium tabs ${show(sorted(urls))}, model ${show(sorted(e.tabs))}`)

    const jar = cookiesBySite(await live.context.cookies())
    for (const f of foreign(id, jar)) problems.push(`${id}'s context holds ${f} (cookie)`)
    if (!isDeepStrictEqual(normal(jar), normal(e.cookies)))
      problems.push(`${id} open: Chromium cookies ${show(normal(jar))}, model ${show(normal(e.cookies))}`)

    const storage = await storageSeenByPages(pages)
    for (const f of foreign(id, storage)) problems.push(`${id}'s pages see ${f} (localStorage)`)
    for (const [host, items] of Object.entries(storage)) {
      const expected = e.storage[host] ?? {}
      if (!isDeepStrictEqual(items, expected))
        problems.push(`${id} open: a page of ${host} sees localStorage ${show(items)}, model ${show(expected)}`)
    }
  }

  const mayHold = new Set([...idsIn(m, 'parked'), ...idsIn(m, 'open'), ...idsIn(m, 'crashed')])
  const records = await sys.recordIds()
  for (const id of records)
    if (!mayHold.has(id)) problems.push(`the store holds a record for ${id}, which is ${errandOf(m, id).state}`)

  const open = idsIn(m, 'open').length
  const count = sys.errandContextCount()
  if (count > m.cap) problems.push(`the errands' Chromium holds ${count} contexts, over the cap of ${m.cap}`)
  else if (count !== open) problems.push(`the errands' Chromium holds ${count} contexts; ${open} errands are open`)

  const main = cookiesBySite(await sys.mainContext().cookies())
  if (!isDeepStrictEqual(normal(main), normal(m.main)))
    problems.push(`the main context changed: ${show(normal(main))}, was ${show(normal(m.main))}`)

  if (problems.length > 0) throw new InvariantBroken(problems)
}
