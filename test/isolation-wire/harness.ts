/**
 * Set-up of the wire-level isolation tests (T5): the whole engine (test/errands/harness.ts) whose
 * two Chromiums map `*.wire.test` to the {@link serveWire} server and accept its self-signed
 * certificate as valid, and three conversations to compare:
 *
 * - `a`: a task — an errand context in the errands' browser;
 * - `b`: a chat toggled to a browser of its own (E2) — another errand context, same browser;
 * - `main`: an ordinary chat — the person's main context, in the main browser.
 *
 * Each has one tab (a renderer costs ~0.4 s here) that {@link Wire.visit} navigates; a test that
 * needs a fresh tab (sessionStorage) opens one with {@link Wire.newTab}.
 *
 * @example
 * const w = await startWire()
 * await w.visit('a', w.server.url(HOSTS.shop, '/set-cookie?name=n&value=v'))
 * expect(await w.cookieSeenBy('a', HOSTS.shop)).toBe('n=v')
 * await w.stop()
 */
import { afterAll, beforeAll } from 'vitest'
import type { ContextId } from '@errands/runtime'
import type { BrowserContext, Page } from 'playwright-core'
import { Effect } from 'effect'
import { startEngine, type Engine } from '../errands/harness.ts'
import { HOSTS, RESOLVER_RULES, serveWire, type WireServer } from './server.ts'

/** The three conversations every case compares. @example const who: Who = 'main' */
export type Who = 'a' | 'b' | 'main'

/** Every conversation of the harness. @example everyone.length // 3 */
export const everyone: ReadonlyArray<Who> = ['a', 'b', 'main']

/**
 * The conversations other than `who`: where a value set in `who` must not show. @example others('a') // ['b', 'main']
 */
export const others = (who: Who): ReadonlyArray<Who> => everyone.filter((o) => o !== who)

/**
 * A running engine, server and the three conversations' contexts. @example await w.visit('b', w.server.url(HOSTS.shop,
 * '/page'))
 */
export interface Wire {
  readonly engine: Engine
  readonly server: WireServer
  readonly contextOf: (who: Who) => ContextId
  /** The Playwright context (for what the runtime does not expose: permissions, cookies API). */
  readonly browserContext: (who: Who) => BrowserContext
  /** The conversation's own tab, navigated to `url` (until `load`). */
  readonly visit: (who: Who, url: string) => Promise<Page>
  /** A new tab of the conversation on `url`. */
  readonly newTab: (who: Who, url: string) => Promise<Page>
  /** The `Cookie` header a request of `who` to `https?://host/echo` carried, as the server saw it. */
  readonly cookieSeenBy: (who: Who, host?: string, scheme?: 'http' | 'https') => Promise<string>
  readonly stop: () => Promise<void>
}

let probes = 0

/**
 * Starts the server and the engine, and opens the conversations `a`, `b` and `main`.
 *
 * @example
 * const w = await startWire()
 */
export const startWire = async (): Promise<Wire> => {
  const server = await serveWire()
  const engine = await startEngine(
    { maxErrands: 4 },
    {
      chromium: {
        extraArgs: [`--host-resolver-rules=${RESOLVER_RULES}`, `--ignore-certificate-errors-spki-list=${server.spki}`],
      },
    },
  )
  const { supervisor } = engine
  const a = await engine.run(supervisor.open({ id: 'a', kind: 'task' }))
  await engine.run(supervisor.open({ id: 'b', kind: 'chat' }))
  await engine.run(supervisor.setOwnBrowser('b', true))
  const b = await engine.run(supervisor.use('b', (binding) => Effect.succeed(binding)))
  const main = await engine.run(supervisor.open({ id: 'main', kind: 'chat' }))
  if (!a.isolated || !b.isolated || main.isolated) throw new Error('expected two errands and one chat on main')
  const ids: Record<Who, ContextId> = { a: a.contextId, b: b.contextId, main: main.contextId }

  const tabs = new Map<Who, Page>()
  const newTab = (who: Who, url: string) => engine.newPage(ids[who], url)
  const visit = async (who: Who, url: string) => {
    const known = tabs.get(who)
    if (known && !known.isClosed()) {
      await known.goto(url)
      return known
    }
    const page = await newTab(who, url)
    tabs.set(who, page)
    return page
  }
  return {
    engine,
    server,
    visit,
    newTab,
    contextOf: (who) => ids[who],
    browserContext: (who) => {
      const context = engine.chromium.browserContextOf(ids[who])
      if (!context) throw new Error(`no context for ${who}`)
      return context
    },
    cookieSeenBy: async (who, host = HOSTS.shop, scheme = 'http') => {
      const probe = `p${++probes}`
      await visit(who, server.url(host, `/echo?probe=${probe}`, scheme))
      const cookie = server.cookieAt(probe)
      if (cookie === undefined) throw new Error(`probe ${probe} never reached the server`)
      return cookie
    },
    stop: async () => {
      await engine.stop()
      await server.close()
    },
  }
}

/**
 * Starts the wire before a test file's tests and stops it after them; call it at the top of the
 * file and use the function it returns inside tests.
 *
 * @example
 * const wire = useWire()
 * it('…', async () => { await wire().visit('a', url) })
 */
export const useWire = (): (() => Wire) => {
  let w: Wire | undefined
  beforeAll(async () => {
    w = await startWire()
  })
  afterAll(async () => {
    await w?.stop()
  })
  return () => {
    if (!w) throw new Error('the wire is not started (useWire() runs it in beforeAll)')
    return w
  }
}

/**
 * A host of its own per case and direction, so what one case leaves behind cannot help another. @example
 * hostFor('hsts', 'a') // 'hsts-a.wire.test'
 */
export const hostFor = (what: string, who: Who) => `${what}-${who}.wire.test`

/** The cookie names in a `Cookie` header, sorted. @example names('b=1; a=2') // ['a', 'b'] */
export const names = (header: string): ReadonlyArray<string> =>
  header
    .split(';')
    .map((part) => part.split('=')[0]!.trim())
    .filter((name) => name !== '')
    .sort()
