// Issue #27 (A1, T5): the browser's default context belongs to no errand. Cookie methods sent on a
// client's own page session without a browserContextId used to act on it — a covert channel
// between every errand's clients. Now they are forced into the errand's own context: what A sets
// is A's (its own requests carry it), never B's nor main's (judged on the wire: the fixture's
// Cookie header), and what A reads or clears is only its own.
import { describe, expect, it } from 'vitest'
import { useDevToolsHost } from './harness.ts'
import { RawCdp } from './raw.ts'

const env = useDevToolsHost(1)

describe("cookie and storage methods on any session are the errand's (#27)", () => {
  it(
    "Storage.setCookies / getCookies / clearCookies without an id on A's page session never reach B nor " + 'main',
    async () => {
      const { sites } = env()
      const site = sites[0]!
      const a = await RawCdp.open(await env().endpoint('dc-a'))
      const b = await RawCdp.open(await env().endpoint('b'))
      try {
        // B has a cookie of its own (set through its endpoint, at the browser level: B's context).
        expect(
          (await b.send('Storage.setCookies', { cookies: [{ name: 'bOnly', value: '1', url: site.origin }] })).error,
        ).toBeUndefined()
        expect(await env().cookieSeenBy('b', 0)).toContain('bOnly=1')

        const { sessionId } = await a.newPage()
        const set = await a.send(
          'Storage.setCookies',
          { cookies: [{ name: 'covert', value: 'a2b', url: site.origin }] },
          sessionId,
        )
        expect(set.error).toBeUndefined()
        // On the wire: B and main never send it; A does (forced into A's context, not dropped).
        expect(await env().cookieSeenBy('b', 0)).not.toContain('covert')
        expect(await env().cookieSeenBy('main', 0)).not.toContain('covert')
        // …nor does B's client read it on its own page session (the covert channel of #27).
        const bPage = await b.newPage()
        const bRead = await b.send('Storage.getCookies', {}, bPage.sessionId)
        expect(JSON.stringify(bRead.result)).not.toContain('covert')
        await env().host.call('dc-a', 'POST', '/v1/navigate', { url: site.url('/echo') })
        expect(site.lastCookie('/echo')).toContain('covert=a2b')

        // Reading without an id on A's session sees A's cookies only.
        const read = await a.send('Storage.getCookies', {}, sessionId)
        const names = ((read.result?.cookies ?? []) as Array<{ name: string }>).map((c) => c.name)
        expect(names).toContain('covert')
        expect(names).not.toContain('bOnly')
        // Naming another context on a session is refused.
        const other = await b.send('Target.getTargets')
        expect(other.result).toBeDefined()
        expect(
          (await a.send('Storage.getCookies', { browserContextId: 'F'.repeat(32) }, sessionId)).error?.message,
        ).toMatch(/not this errand/)

        // Clearing without an id clears A's only: B still sends its cookie.
        expect((await a.send('Storage.clearCookies', {}, sessionId)).error).toBeUndefined()
        expect(await env().cookieSeenBy('b', 0)).toContain('bOnly=1')
        await env().host.call('dc-a', 'POST', '/v1/navigate', { url: site.url('/echo') })
        expect(site.lastCookie('/echo') ?? '').not.toContain('covert')
      } finally {
        a.close()
        b.close()
      }
    },
  )
})
