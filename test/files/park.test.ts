// An errand's files across a park (issue #25, F3, S1, E3) against a real host with real Chromium:
// a page's download parks sealed with its errand (no byte of it on disk in the clear while
// parked, its folder gone) and comes back with it, listed the same with equal bytes; another
// errand never sees it; a done task leaves neither a folder nor a sealed record; a download over
// ERRANDS_FILES_MAX_FILE_BYTES or …_MAX_ERRAND_BYTES is deleted and never listed, and the
// session goes on downloading.
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHost, until, type TestHost } from '../host/harness.ts'
import { serveFileSite, type FileSite } from '../fixtures/fileSite.ts'
import { bytesOf, downloadsOf, type Agent } from './downloads.ts'

const MARKER = 'PARKED-INVOICE-MARKER-5e1d'
const REPORT = Buffer.from(`%PDF-1.4 ${MARKER} ${'x'.repeat(500)}`)
const BIG = Buffer.alloc(3000, 'b')
const SMALL = Buffer.from('a small receipt')
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>park files</title></head><body>
<a id="dl" href="/files/report.pdf?token=secret" download="report.pdf">report</a>
<a id="big" href="/files/big.bin" download="big.bin">big</a>
<a id="small" href="/files/small.txt" download="small.txt">small</a>
</body></html>`

let site: FileSite
let origin: string
let host: TestHost

beforeAll(async () => {
  site = await serveFileSite(PAGE, {
    '/files/report.pdf': ['application/pdf', REPORT],
    '/files/big.bin': ['application/octet-stream', BIG],
    '/files/small.txt': ['text/plain', SMALL],
  })
  origin = site.origin
  host = await startTestHost({
    ERRANDS_MAX_SESSIONS: '3',
    ERRANDS_FILES_MAX_FILE_BYTES: '2000',
    ERRANDS_FILES_MAX_ERRAND_BYTES: '2500',
  })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
})

const onPage = async (key: string): Promise<Agent> => {
  const agent = host.v1(key)
  expect((await agent.navigate({ body: { url: `${origin}/` } })).ok).toBe(true)
  return agent
}

/** The errand's files folder on disk while it is open. */
const folderOf = async (key: string) => {
  const contextId = host.supervisor.contextOf(`session:${key}`)
  if (contextId === undefined) throw new Error(`${key} has no open context`)
  return host.run(host.chromium.filesDir(contextId))
}

/** The sealed record of a session's errand (the store names it by the errand id's hash). */
const sealedPath = (key: string) =>
  join(host.dataDir, 'store', 'errands', `${createHash('sha256').update(`session:${key}`).digest('hex')}.sealed`)

/** Every file under a folder, with its bytes. */
const everyFile = (dir: string): Array<{ path: string; bytes: Buffer }> =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => ({ path: join(d.parentPath, d.name), bytes: readFileSync(join(d.parentPath, d.name)) }))

/** Playwright's artifacts (downloads) folders in the TMPDIRs of this host's Chromium. */
const ourArtifactDirs = () =>
  readdirSync(tmpdir())
    .filter((name) => name.startsWith('errands-chromium-'))
    .map((name) => join(tmpdir(), name))
    .filter((dir) => {
      try {
        return (
          JSON.parse(readFileSync(join(dir, '.errands-owner.json'), 'utf8')).owner === realpathSync(host.dataDir) &&
          existsSync(join(dir, 'artifacts'))
        )
      } catch {
        return false
      }
    })
    .map((dir) => join(dir, 'artifacts'))

const park = async (agent: Agent) => {
  const parked = await agent.task({ body: { status: 'interrupted' } })
  expect(parked.ok && parked.body).toEqual({ lifecycle: 'parked' })
}

const downloadOne = async (agent: Agent, selector: string, count: number) => {
  expect((await agent.click({ body: { selector } })).ok).toBe(true)
  expect(await until(async () => (await downloadsOf(agent)).length === count, 15_000)).toBe(true)
}

describe("an errand's files park sealed and resume with it (F3, S1)", () => {
  it(
    'download → park → nothing of it in the clear, folder gone → resume → listed the same with equal ' + 'bytes',
    async () => {
      const agent = await onPage('park-a')
      await downloadOne(agent, '#dl', 1)
      const before = await downloadsOf(agent)
      const folder = await folderOf('park-a')
      expect(existsSync(join(folder, 'report.pdf'))).toBe(true)

      await park(agent)
      expect(existsSync(folder)).toBe(false)
      expect(existsSync(sealedPath('park-a'))).toBe(true)
      // S1: the store holds the download's bytes sealed, never in the clear (nor its name or URL).
      // …and no other errand folder (their common root), nor Playwright's downloads folder of our
      // Chromium, holds a copy either.
      const artifacts = ourArtifactDirs()
      expect(artifacts.length).toBeGreaterThan(0)
      for (const { path, bytes } of [join(host.dataDir, 'store'), dirname(folder), ...artifacts].flatMap(everyFile)) {
        for (const plain of [MARKER, 'report.pdf', origin])
          expect(bytes.includes(plain), `${plain} in ${path}`).toBe(false)
      }

      // Any use resumes it; the folder is back as it parked.
      const after = await downloadsOf(agent)
      expect(after).toEqual(before)
      expect((await bytesOf(agent, 'report.pdf'))?.equals(REPORT)).toBe(true)
      const back = await folderOf('park-a')
      expect(back).not.toBe(folder)
      expect(readFileSync(join(back, 'report.pdf')).equals(REPORT)).toBe(true)
    },
  )

  it('another errand never sees them, before or after its own park and resume', async () => {
    const other = await onPage('park-b')
    expect(await downloadsOf(other)).toEqual([])
    expect((await other.download({ params: { name: 'report.pdf' } })).status).toBe(404)
    await park(other)
    expect(await downloadsOf(other)).toEqual([])
    expect((await other.download({ params: { name: 'report.pdf' } })).status).toBe(404)
    // …and the first errand still has its own after a second park.
    const first = host.v1('park-a')
    await park(first)
    expect((await downloadsOf(first)).map((f) => f.name)).toEqual(['report.pdf'])
  })

  it('a done task leaves no folder on disk and no sealed record (E3)', async () => {
    const agent = await onPage('park-done')
    await downloadOne(agent, '#dl', 1)
    await park(agent)
    expect(existsSync(sealedPath('park-done'))).toBe(true)
    expect((await downloadsOf(agent)).map((f) => f.name)).toEqual(['report.pdf'])
    const folder = await folderOf('park-done')
    expect(existsSync(join(folder, 'report.pdf'))).toBe(true)

    const done = await agent.task({ body: { status: 'done' } })
    expect(done.ok && done.body).toEqual({ lifecycle: 'closed' })
    expect(existsSync(folder)).toBe(false)
    expect(existsSync(sealedPath('park-done'))).toBe(false)
    // The key starts fresh: no file comes back.
    expect(await downloadsOf(agent)).toEqual([])
  })

  it('a released session leaves no folder on disk and no sealed record (E3)', async () => {
    const agent = await onPage('park-release')
    await downloadOne(agent, '#dl', 1)
    await park(agent)
    expect((await downloadsOf(agent)).length).toBe(1)
    const folder = await folderOf('park-release')
    expect((await agent.release()).ok).toBe(true)
    expect(existsSync(folder)).toBe(false)
    expect(existsSync(sealedPath('park-release'))).toBe(false)
  })
})

describe('a restart brings parked files back', () => {
  it(
    'shutdown parks an errand with its download; a new host on the same data dir resumes it with equal ' + 'bytes',
    async () => {
      const first = await startTestHost({})
      const dataDir = first.dataDir
      let second: TestHost | undefined
      try {
        const agent = first.v1('restart-a')
        expect((await agent.navigate({ body: { url: `${origin}/` } })).ok).toBe(true)
        expect((await agent.click({ body: { selector: '#dl' } })).ok).toBe(true)
        expect(await until(async () => (await downloadsOf(agent)).length === 1, 15_000)).toBe(true)
        const before = await downloadsOf(agent)
        await first.close()
        second = await startTestHost({}, dataDir)
        const again = second.v1('restart-a')
        expect(await downloadsOf(again)).toEqual(before)
        expect((await bytesOf(again, 'report.pdf'))?.equals(REPORT)).toBe(true)
      } finally {
        if (second) await second.stop()
        else await first.stop()
      }
    },
  )
})

describe('downloads are capped like staged files', () => {
  it('a download over the per-file cap is deleted and never listed; the session goes on downloading', async () => {
    const agent = await onPage('cap-file')
    const folder = await folderOf('cap-file')
    expect((await agent.click({ body: { selector: '#big' } })).ok).toBe(true)
    expect(await until(() => host.logs.some((l) => l.includes('refused: over the file cap')), 15_000)).toBe(true)
    expect(await downloadsOf(agent)).toEqual([])
    expect(readdirSync(folder)).toEqual([])
    await downloadOne(agent, '#small', 1)
    expect((await downloadsOf(agent)).map((f) => f.name)).toEqual(['small.txt'])
    const url = await agent.url()
    expect(url.ok && url.body.url).toBe(`${origin}/`)
  })

  it("a download that would pass the errand's folder cap is deleted and never listed", async () => {
    const agent = await onPage('cap-errand')
    const fill = await agent.stageFile({ query: { name: 'fill.bin' }, raw: new Uint8Array(1990) })
    expect(fill.ok).toBe(true)
    const refusals = host.logs.filter((l) => l.includes("refused: over the errand's folder cap")).length
    expect((await agent.click({ body: { selector: '#dl' } })).ok).toBe(true)
    expect(
      await until(
        () => host.logs.filter((l) => l.includes("refused: over the errand's folder cap")).length > refusals,
        15_000,
      ),
    ).toBe(true)
    expect(await downloadsOf(agent)).toEqual([])
    await downloadOne(agent, '#small', 1)
    expect((await downloadsOf(agent)).map((f) => f.name)).toEqual(['small.txt'])
  })
})
