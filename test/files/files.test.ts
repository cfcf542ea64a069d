// Files per errand (issue #25, F1–F3) against a real host with real Chromium, through the typed
// client: a page's download lands in the errand's own folder under its name (deduplicated), is
// listed and read back, and never ends the session (Playwright MCP issue #1768, where a download
// closed the page's session); a file staged over HTTP is what /v1/upload puts in a file input.
// Beside each working call, the way to break it: another session asking for the file, a name
// that leaves the folder, a file or a folder over its cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHost, until, type TestHost } from '../host/harness.ts'
import { httpClient } from '../mcp/clients.ts'
import { serveFileSite, type FileSite } from '../fixtures/fileSite.ts'
import { downloadsOf } from './downloads.ts'

const REPORT = Buffer.from(`%PDF-1.4 a report ${'x'.repeat(300)}`)
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>files</title></head><body>
<a id="dl" href="/files/report.pdf?token=secret" download="report.pdf">report</a>
<a id="evil" href="/files/report.pdf" download="../../.bashrc">evil</a>
<input id="file" type="file">
</body></html>`

/** What the fixture's /upload received, in order. */
let received: Array<string> = []
let site: FileSite
let origin: string
let host: TestHost

beforeAll(async () => {
  site = await serveFileSite(PAGE, { '/files/report.pdf': ['application/pdf', REPORT] })
  origin = site.origin
  received = site.received
  host = await startTestHost({
    ERRANDS_MAX_SESSIONS: '3',
    ERRANDS_FILES_MAX_FILE_BYTES: '1000',
    ERRANDS_FILES_MAX_ERRAND_BYTES: '3000',
  })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
})

const onPage = async (key: string) => {
  const agent = host.v1(key)
  expect((await agent.navigate({ body: { url: `${origin}/` } })).ok).toBe(true)
  return agent
}

describe('files per errand (issue #25)', () => {
  it(
    'a download lands in the errand folder under its name, its bytes come back, and the session still ' + 'answers',
    async () => {
      const agent = await onPage('files-dl')
      expect((await agent.click({ body: { selector: '#dl' } })).ok).toBe(true)
      await until(async () => (await downloadsOf(agent)).length === 1, 15_000)
      const [file] = await downloadsOf(agent)
      expect(file).toMatchObject({
        name: 'report.pdf',
        size: REPORT.byteLength,
        type: 'application/pdf',
        source: `${origin}/files/report.pdf`,
      })
      const bytes = await agent.download({ params: { name: 'report.pdf' } })
      expect(bytes.ok && bytes.headers.get('content-type')).toBe('application/pdf')
      expect(bytes.ok && Buffer.from(bytes.body).equals(REPORT)).toBe(true)
      // The download neither navigated nor closed anything (Playwright MCP #1768).
      const url = await agent.url()
      expect(url.ok && url.body.url).toBe(`${origin}/`)
      expect((await agent.tabs()).ok).toBe(true)
    },
  )

  it('a second download of the same name is deduplicated; a name that climbs out is made plain', async () => {
    const agent = await onPage('files-dedupe')
    await agent.click({ body: { selector: '#dl' } })
    await until(async () => (await downloadsOf(agent)).length === 1, 15_000)
    await agent.click({ body: { selector: '#dl' } })
    await agent.click({ body: { selector: '#evil' } })
    await until(async () => (await downloadsOf(agent)).length === 3, 15_000)
    expect((await downloadsOf(agent)).map((f) => f.name).sort()).toEqual(['bashrc', 'report (1).pdf', 'report.pdf'])
  })

  it('another session never sees them: an empty list and a 404', async () => {
    const other = host.v1('files-other')
    expect(await downloadsOf(other)).toEqual([])
    const absent = await other.download({ params: { name: 'report.pdf' } })
    expect(absent.status).toBe(404)
    expect(!absent.ok && absent.body?.error.code).toBe('FileNotFound')
  })

  it('a staged file is what /v1/upload puts in a file input, and the site receives it', async () => {
    const agent = await onPage('files-stage')
    const staged = await agent.stageFile({
      query: { name: 'note.txt' },
      raw: new TextEncoder().encode('a staged note'),
    })
    expect(staged.ok && staged.body).toEqual({ name: 'note.txt', size: 13 })
    const again = await agent.stageFile({ query: { name: 'note.txt' }, raw: new TextEncoder().encode('another') })
    expect(again.ok && again.body.name).toBe('note (1).txt')
    expect((await agent.upload({ body: { selector: '#file', names: ['note.txt'] } })).ok).toBe(true)
    const sent = await agent.evaluate({
      body: {
        expression:
          'fetch("/upload", { method: "POST", body: document.getElementById("file").files[0] }).then((r) => r.text())',
      },
    })
    expect(sent.ok && sent.body.value).toBe('ok')
    expect(received).toContain('a staged note')
    // Staged files are not downloads.
    expect(await downloadsOf(agent)).toEqual([])
  })

  it('over the per-file or the per-errand cap is a 413; a name with a separator or .. is a 400', async () => {
    const agent = host.v1('files-caps')
    const big = await agent.stageFile({ query: { name: 'big.bin' }, raw: new Uint8Array(1001) })
    expect(big.status).toBe(413)
    for (const name of ['a', 'b', 'c'])
      expect((await agent.stageFile({ query: { name }, raw: new Uint8Array(900) })).ok).toBe(true)
    const full = await agent.stageFile({ query: { name: 'd' }, raw: new Uint8Array(900) })
    expect(full.status).toBe(413)
    expect(!full.ok && full.body?.error.code).toBe('FileTooLarge')
    for (const name of ['../x', 'a/b', '..', 'a\\b']) {
      expect((await agent.stageFile({ query: { name }, raw: new Uint8Array(1) })).status, name).toBe(400)
      // A bare `..` in a path is resolved by the URL itself (to /v1/session): no route, never a file.
      expect((await agent.download({ params: { name } })).status, name).toBe(name === '..' ? 404 : 400)
    }
  })

  it('8 parallel staged uploads never pass the errand cap: what was accepted fits, the rest is 413', async () => {
    // The attack: 8 × 900 bytes at once into a 3,000-byte folder, each through the real route.
    const agent = host.v1('files-race')
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => agent.stageFile({ query: { name: `r${i}.bin` }, raw: new Uint8Array(900) })),
    )
    const accepted = answers.filter((a) => a.ok)
    expect(accepted).toHaveLength(3)
    for (const a of answers) if (!a.ok) expect([a.status, a.body?.error.code]).toEqual([413, 'FileTooLarge'])
    // The folder holds exactly what was accepted: 300 bytes more fill it, one more byte is refused.
    expect((await agent.stageFile({ query: { name: 'fill.bin' }, raw: new Uint8Array(300) })).ok).toBe(true)
    expect((await agent.stageFile({ query: { name: 'over.bin' }, raw: new Uint8Array(1) })).status).toBe(413)
  })

  it('MCP lists the same downloads (browser_downloads); another session sees none there', async () => {
    const agent = await onPage('files-mcp')
    await agent.click({ body: { selector: '#dl' } })
    await until(async () => (await downloadsOf(agent)).length === 1, 15_000)
    const mcp = await httpClient(host.url, { key: 'files-mcp' })
    try {
      const listed = await mcp.call('browser_downloads')
      expect(listed.isError, listed.text).toBeFalsy()
      expect(listed.text).toContain(
        `"report.pdf" (${REPORT.byteLength} bytes, application/pdf) from ${origin}/files/report.pdf`,
      )
      expect(listed.text).not.toContain('secret')
      const other = await httpClient(host.url, { key: 'files-mcp-other' })
      try {
        expect((await other.call('browser_downloads')).text).toContain('No downloads yet')
      } finally {
        await other.end()
      }
    } finally {
      await mcp.end()
    }
  })
})
