/**
 * The DevTools endpoint's real-Chromium tests share this: a host (in-process, real Chromium),
 * fixture sites, the URL of a session's endpoint, and what the other errand and the person's
 * main context send to a site — judged on the wire, by the fixture server's Cookie headers (T5).
 *
 * @example
 * const env = useDevToolsHost()
 * const url = await env().endpoint('a')
 * expect(await env().cookieSeenBy('b', 0)).not.toContain('pw=')
 */
import { afterAll, beforeAll } from 'vitest'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { startTestHost, type TestHost } from '../host/harness.ts'

/** Who besides the connected errand: another errand (session `b`) and the person's main context. */
export type Other = 'b' | 'main'

/** What the tests get. */
export interface DevToolsEnv {
  readonly host: TestHost
  readonly sites: ReadonlyArray<Site>
  /** A fresh DevTools URL of session `key` (opened through the host like every verb). */
  readonly endpoint: (key: string) => Promise<string>
  /** The Cookie header site `i` got when `who` loaded its `/echo` ('' for none). */
  readonly cookieSeenBy: (who: Other, i: number) => Promise<string>
}

/**
 * Starts one host and `siteCount` sites for the file; stops them after.
 *
 * @example
 * const env = useDevToolsHost(2)
 */
export const useDevToolsHost = (siteCount = 2, env: Record<string, string> = {}): (() => DevToolsEnv) => {
  let value: DevToolsEnv | undefined
  beforeAll(async () => {
    const [host, sites] = await Promise.all([startTestHost(env), serveSites(siteCount)])
    const endpoint = host.devtoolsUrl
    const cookieSeenBy = async (who: Other, i: number) => {
      const site = sites[i]!
      const before = site.log.length
      const path = who === 'main' ? '/v1/person/main/navigate' : '/v1/navigate'
      const reply = await host.call(who === 'main' ? undefined : who, 'POST', path, { url: site.url('/echo') })
      if (reply.status !== 200) throw new Error(`${path} → ${reply.status}`)
      const hit = site.log.slice(before).find((h) => h.path === '/echo')
      if (hit === undefined) throw new Error(`site ${i} saw no /echo from ${who}`)
      return hit.cookie ?? ''
    }
    value = { host, sites, endpoint, cookieSeenBy }
  })
  afterAll(async () => {
    await Promise.all([value?.host.stop(), value ? closeSites(value.sites) : undefined])
  })
  return () => {
    if (value === undefined) throw new Error('useDevToolsHost: not started yet')
    return value
  }
}

/**
 * The public ids of session `key`'s tabs, with their URLs (what the host, the live view and
 * snapshots see).
 *
 * @example
 * expect((await tabsOf(host, 'a')).map((t) => t.url)).toContain(site.url('/title?t=x'))
 */
export const tabsOf = async (
  host: TestHost,
  key: string,
): Promise<ReadonlyArray<{ readonly id: string; readonly url: string }>> => {
  const reply = await host.call(key, 'GET', '/v1/tabs')
  return reply.body.tabs
}
