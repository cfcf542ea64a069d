// Each download of an errand as an MCP resource (issue #25, F2), with the SDK's own Client over
// Streamable HTTP against a real host on real Chromium: a page's download lands, the server
// tells the client its resource list changed, resources/list shows it (`errands://downloads/…`
// with its name, type and size) and resources/read answers its bytes — text for a text type, a
// base64 blob otherwise, equal to what the site sent. The ways to break it: a name the errand
// does not hold (an error naming it), and another session's client (it lists nothing of A's).
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHost, until, type TestHost } from '../host/harness.ts'
import { httpClient, refOf } from './clients.ts'
import { serveFileSite, type FileSite } from '../fixtures/fileSite.ts'

const NOTES = 'first line\nsecond line – ünïcode\n'
const BLOB = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256))
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>downloads</title></head><body>
<a href="/files/notes.txt" download="notes.txt">Get notes</a>
<a href="/files/data.bin" download="data.bin">Get data</a>
</body></html>`

let site: FileSite
let origin: string
let host: TestHost

beforeAll(async () => {
  site = await serveFileSite(PAGE, {
    '/files/notes.txt': ['text/plain; charset=utf-8', NOTES],
    '/files/data.bin': ['application/octet-stream', BLOB],
  })
  origin = site.origin
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '4' })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
})

describe("an errand's downloads are MCP resources (#25, F2)", () => {
  it(
    'lists each download with name, type and size, reads its bytes, tells the client when one lands; another ' +
      'session sees none of them',
    async () => {
      const a = await httpClient(host.url)
      const b = await httpClient(host.url)
      try {
        expect((await a.client.getServerCapabilities())?.resources?.listChanged).toBe(true)
        let changed = 0
        a.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changed++)
        expect((await a.client.listResources()).resources).toEqual([])

        const page = await a.call('browser_navigate', { url: `${origin}/` })
        expect(page.isError, page.text).toBe(false)
        const notes = await a.call('browser_click', {
          element: 'Get notes link',
          target: refOf(page.text, /link "Get notes"/),
        })
        expect(notes.isError, notes.text).toBe(false)
        await until(() => changed >= 1, 15_000)
        const data = await a.call('browser_click', {
          element: 'Get data link',
          target: refOf(page.text, /link "Get data"/),
        })
        expect(data.isError, data.text).toBe(false)
        await until(async () => (await a.client.listResources()).resources.length === 2, 15_000)
        expect(changed).toBeGreaterThanOrEqual(2)

        const listed = (await a.client.listResources()).resources.sort((x, y) => x.name.localeCompare(y.name))
        expect(listed.map(({ uri, name, mimeType, size }) => ({ uri, name, mimeType, size }))).toEqual([
          {
            uri: 'errands://downloads/data.bin',
            name: 'data.bin',
            mimeType: 'application/octet-stream',
            size: BLOB.length,
          },
          {
            uri: 'errands://downloads/notes.txt',
            name: 'notes.txt',
            mimeType: expect.stringMatching(/^text\/plain/),
            size: Buffer.byteLength(NOTES),
          },
        ])
        const text = (await a.client.readResource({ uri: 'errands://downloads/notes.txt' })).contents[0] as {
          text?: string
          mimeType?: string
        }
        expect(text.text).toBe(NOTES)
        const blob = (await a.client.readResource({ uri: 'errands://downloads/data.bin' })).contents[0] as {
          blob?: string
        }
        expect(Buffer.from(blob.blob ?? '', 'base64').equals(BLOB)).toBe(true)

        // A name the errand does not hold, or one trying to leave its folder: an error naming it.
        await expect(a.client.readResource({ uri: 'errands://downloads/missing.txt' })).rejects.toThrow(
          /No download called "missing\.txt"/,
        )
        await expect(
          a.client.readResource({ uri: `errands://downloads/${encodeURIComponent('../notes.txt')}` }),
        ).rejects.toThrow(/No download called/)

        // Another session's client: its own errand, none of A's downloads, and A's names are unknown there.
        expect((await b.client.listResources()).resources).toEqual([])
        await expect(b.client.readResource({ uri: 'errands://downloads/notes.txt' })).rejects.toThrow(
          /No download called "notes\.txt"/,
        )

        // The downloads ended nothing: a later tool call works.
        expect((await a.call('browser_snapshot')).isError).toBe(false)
      } finally {
        await a.end()
        await b.end()
      }
    },
  )
})
