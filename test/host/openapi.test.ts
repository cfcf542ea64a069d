import { Validator } from '@seriousme/openapi-schema-validator'
import { api, endpointsOf } from '@errands/host'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveFixture, type Fixture } from './fixtures.ts'
import { startTestHost, type TestHost } from './harness.ts'

// Issue #24's declared /v1 over the real socket and real Chromium: the document the running host
// serves validates as OpenAPI 3.1 and names every route, and the typed client's answers from real
// pages decode with their declared Schemas (the client throws AnswerMismatch when one does not).

let site: Fixture
let host: TestHost

beforeAll(async () => {
  site = await serveFixture('127.0.0.1')
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '2' })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
})

describe('/v1/openapi.json on a running host', () => {
  it('validates as OpenAPI 3.1, names this host and every declared route, without a key or token', async () => {
    const res = await fetch(`${host.url}/v1/openapi.json`)
    expect(res.status).toBe(200)
    const doc = (await res.json()) as {
      servers: Array<{ url: string }>
      paths: Record<string, Record<string, unknown>>
    }
    const result = await new Validator().validate(doc)
    expect(result.errors ?? []).toEqual([])
    expect(doc.servers).toEqual([{ url: host.url }])
    for (const e of endpointsOf(api))
      expect(
        doc.paths[e.path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[e.method.toLowerCase()],
        `${e.method} ${e.path}`,
      ).toBeDefined()
  })

  it("real pages' answers decode with their declared Schemas through the typed client", async () => {
    const agent = host.v1('openapi-k1')
    const steps = [
      await agent.navigate({ body: { url: site.url('/show') } }),
      await agent.url(),
      await agent.text(),
      await agent.html(),
      await agent.state(),
      await agent.scroll({ body: { dx: 0, dy: 100 } }),
      await agent.viewport({ body: { width: 800, height: 600 } }),
      await agent.openTab({ body: { url: site.url('/show') } }),
      await agent.screenshot(),
      await host.v1().person.sessions(),
      await host.v1().person.settings(),
      await host.v1().person.health(),
      await host.v1().health(),
    ]
    expect(steps.map((s) => (s.ok ? 200 : [s.status, s.body]))).toEqual(steps.map(() => 200))
    const tabs = await agent.tabs()
    expect(tabs.ok && tabs.body.tabs.length).toBe(2)
    const png = steps[8]!
    expect([...png.bytes.slice(1, 4)]).toEqual([0x50, 0x4e, 0x47])
    expect((await agent.release()).ok).toBe(true)
  })
})
