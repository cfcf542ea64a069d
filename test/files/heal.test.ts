// An errand's files across a crash (issue #25, K3 with F3) against a real host with real
// Chromium: when an errand's renderer crashes, or the whole errands' browser is killed, its files
// folder is set aside (not deleted) and the heal claims it — the download is listed the same with
// equal bytes in the healed context. When the heal does not come, the folder aside is removed:
// nothing of it stays on disk — an errand whose heals are spent parks with the files sealed in its
// record (F3), one whose task ends forgets them (E3).
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHost, until, type TestHost } from '../host/harness.ts'
import { serveFileSite, type FileSite } from '../fixtures/fileSite.ts'
import { bytesOf, downloadsOf } from './downloads.ts'

const MARKER = 'HEALED-INVOICE-MARKER-7c2a'
const REPORT = Buffer.from(`%PDF-1.4 ${MARKER} ${'x'.repeat(500)}`)
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>heal files</title></head><body>
<a id="dl" href="/files/report.pdf?token=secret" download="report.pdf">report</a>
</body></html>`

let site: FileSite
let host: TestHost

beforeAll(async () => {
  site = await serveFileSite(PAGE, { '/files/report.pdf': ['application/pdf', REPORT] })
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '3' })
})
afterAll(async () => {
  await host?.stop()
  await site?.close()
})

const contextOf = (key: string) => {
  const contextId = host.supervisor.contextOf(`session:${key}`)
  if (contextId === undefined) throw new Error(`${key} has no open context`)
  return contextId
}

/** The errand's files folder on disk while it is open. */
const folderOf = (key: string) => host.run(host.chromium.filesDir(contextOf(key)))

const viewOf = (key: string) => host.run(host.supervisor.view(`session:${key}`))

const detailOf = async (key: string) => (await viewOf(key)).detail

/** A session on the page with report.pdf downloaded: its agent, listing and folder. */
const withDownload = async (key: string) => {
  const agent = host.v1(key)
  expect((await agent.navigate({ body: { url: `${site.origin}/` } })).ok).toBe(true)
  expect((await agent.click({ body: { selector: '#dl' } })).ok).toBe(true)
  expect(await until(async () => (await downloadsOf(agent)).length === 1, 15_000)).toBe(true)
  return { agent, before: await downloadsOf(agent), folder: await folderOf(key) }
}

/**
 * Crashes the renderer of the session's active tab (CDP `Page.crash`), and waits until the supervisor has seen it
 * (`healing`, or `parked` when the heals are spent).
 */
const crashRenderer = async (key: string, seen: 'healing' | 'parked' = 'healing') => {
  const contextId = contextOf(key)
  const [tab] = await host.run(host.chromium.tabs(contextId))
  const page = host.chromium.pageOf(contextId, tab!.id)!
  const session = await host.chromium.browserContextOf(contextId)!.newCDPSession(page)
  await session.send('Page.crash').catch(() => undefined) // no answer: the renderer is gone
  expect(
    await until(
      async () =>
        seen === 'parked' ? (await viewOf(key)).state === 'parked' : (await viewOf(key)).detail.startsWith('healing'),
      15_000,
    ),
  ).toBe(true)
}

/** Every file under the errands' files root that holds the download's bytes. */
const copiesUnder = (root: string) =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && readFileSync(join(d.parentPath, d.name)).includes(MARKER))
    .map((d) => join(d.parentPath, d.name))

describe('a crashed errand keeps its files (K3, F3)', () => {
  it(
    'a renderer crash: the folder is set aside, and after the heal the download is listed the same with equal ' +
      'bytes',
    async () => {
      const { agent, before, folder } = await withDownload('heal-renderer')
      const crashed = contextOf('heal-renderer')
      await crashRenderer('heal-renderer')
      // Aside, not deleted: the folder and its bytes wait for the heal, under the root that carries
      // its owner's marker — so if this engine were killed now, its next start would sweep them.
      expect(readFileSync(join(folder, 'report.pdf')).equals(REPORT)).toBe(true)
      const marker = JSON.parse(readFileSync(join(dirname(folder), '.errands-owner.json'), 'utf8')) as {
        owner: string
        pid: number
      }
      expect(marker).toMatchObject({ owner: realpathSync(host.dataDir), pid: process.pid })

      // Any use heals it; the files are claimed into the new context's folder.
      expect(await downloadsOf(agent)).toEqual(before)
      expect(contextOf('heal-renderer')).not.toBe(crashed)
      expect((await bytesOf(agent, 'report.pdf'))?.equals(REPORT)).toBe(true)
      const healed = await folderOf('heal-renderer')
      expect(healed).not.toBe(folder)
      expect(existsSync(folder)).toBe(false)
      // Moved, not copied: one copy of the bytes under the root.
      expect(copiesUnder(dirname(healed))).toEqual([join(healed, 'report.pdf')])
      // The healed context downloads on into the same folder, on the page loaded again. How the heal
      // reopens tabs is the errand heal tests' subject (test/errands/heal.test.ts); twice under
      // CI's load the click on the reopened tab waited out its 10 s for the link ("click: Timeout
      // 10000ms exceeded"), the file taking 28 s longer than usual: a reopened tab whose load the
      // heal gave up on (it keeps the tab) fits, but it was not reproduced here.
      expect((await agent.navigate({ body: { url: `${site.origin}/` } })).ok).toBe(true)
      const again = await agent.click({ body: { selector: '#dl' } })
      expect(again.ok, JSON.stringify(again.body)).toBe(true)
      expect(
        await until(
          async () => (await downloadsOf(agent)).map((f) => f.name).join() === 'report.pdf,report (1).pdf',
          15_000,
        ),
      ).toBe(true)
      expect((await agent.task({ body: { status: 'done' } })).ok).toBe(true)
    },
  )

  it("the whole errands' browser is killed: every errand heals with its own download", async () => {
    const a = await withDownload('heal-kill-a')
    const b = await withDownload('heal-kill-b')
    process.kill(host.chromium.errandsBrowserPid()!, 'SIGKILL')
    expect(
      await until(
        async () =>
          (await detailOf('heal-kill-a')).startsWith('healing') &&
          (await detailOf('heal-kill-b')).startsWith('healing'),
        15_000,
      ),
    ).toBe(true)
    expect(existsSync(a.folder) && existsSync(b.folder)).toBe(true)

    expect(await downloadsOf(a.agent)).toEqual(a.before)
    expect(await downloadsOf(b.agent)).toEqual(b.before)
    expect((await bytesOf(a.agent, 'report.pdf'))?.equals(REPORT)).toBe(true)
    expect((await bytesOf(b.agent, 'report.pdf'))?.equals(REPORT)).toBe(true)
    expect(existsSync(a.folder) || existsSync(b.folder)).toBe(false)
    for (const agent of [a.agent, b.agent]) expect((await agent.task({ body: { status: 'done' } })).ok).toBe(true)
  })

  it('the task ends before the heal: the folder aside is removed, nothing of it stays on disk', async () => {
    const { agent, folder } = await withDownload('heal-done')
    await crashRenderer('heal-done')
    expect(existsSync(folder)).toBe(true)
    const done = await agent.task({ body: { status: 'done' } })
    expect(done.ok && done.body).toEqual({ lifecycle: 'closed' })
    expect(existsSync(folder)).toBe(false)
    expect(copiesUnder(dirname(folder))).toEqual([])
  })

  it(
    'healing gives up (the crash after the last heal of a streak): the errand parks with its files sealed, no ' +
      'folder remains, and a resume brings them back',
    async () => {
      const { agent, before, folder } = await withDownload('heal-gives-up')
      const folders = [folder]
      // Three heals (the default), each claiming the files; the fourth crash parks it.
      for (let heal = 1; heal <= 3; heal++) {
        await crashRenderer('heal-gives-up')
        // The second and third heals wait their backoff (1 s, 2 s): the use waits with them.
        expect(await until(async () => (await agent.downloads()).ok, 15_000)).toBe(true)
        expect((await downloadsOf(agent)).map((f) => f.name)).toEqual(['report.pdf'])
        folders.push(await folderOf('heal-gives-up'))
      }
      await crashRenderer('heal-gives-up', 'parked')
      for (const dir of folders) expect(existsSync(dir)).toBe(false)
      expect(copiesUnder(dirname(folder))).toEqual([])
      // Sealed in its record (never in the clear), as a park keeps a live folder's files (F3).
      const sealed = join(
        host.dataDir,
        'store',
        'errands',
        `${createHash('sha256').update('session:heal-gives-up').digest('hex')}.sealed`,
      )
      expect(readFileSync(sealed).includes(MARKER)).toBe(false)
      expect(await downloadsOf(agent)).toEqual(before)
      expect((await bytesOf(agent, 'report.pdf'))?.equals(REPORT)).toBe(true)
      expect((await agent.task({ body: { status: 'done' } })).ok).toBe(true)
    },
  )
})
