// A client's download behaviour is its view, not the errand's (A1, F1–F2, R4-8;
// docs/devtools-endpoint.md, clientDownloads.ts). Real Playwright for Node and for Python
// (`connectOverCDP` / `connect_over_cdp`, which set the context's download behaviour while they
// connect; Python's from a cached `pip install --target`, pythonPlaywright.ts) and Puppeteer
// (`downloadBehavior`) download through errands of a real host: the client's `saveAs` / folder
// gets the file's bytes, the host
// lists the same file in the errand's folder, and after the client disconnects a download by the
// host's own `/v1/click` still lands and is listed. The attacks: a folder the endpoint must not
// write into (the host user's home, a symlink, another errand's folder) gets nothing; a client's
// download over the errand's cap is neither listed nor handed to the client.
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { execFile } from 'node:child_process'
import { arch, homedir, platform, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { chromium } from 'playwright-core'
import puppeteer from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveFileSite, type FileSite } from '../fixtures/fileSite.ts'
import { eventually } from '../fixtures/processes.ts'
import { RawCdp } from '../devtools/raw.ts'
import { bytesOf, downloadsOf } from '../files/downloads.ts'
import { startTestHost } from '../host/harness.ts'
import { installed } from './matrix.ts'
import { pythonPlaywright } from './pythonPlaywright.ts'

/** The native binary agent-browser's npm package ships (what its bin script execs here). */
const agentBrowser = join(
  dirname(installed('agent-browser', 'agent-browser').bin),
  `agent-browser-${platform()}-${arch()}`,
)
const run = promisify(execFile)

const REPORT = Buffer.from(`%PDF-1.4 report of the errand ${'x'.repeat(200)}`)
const BIG = Buffer.alloc(6_000, 7)
const EARLY = Buffer.from(`an attachment at once ${'y'.repeat(300)}`)
const PAGE = `<!doctype html><title>files</title>
<a id="dl" href="/files/report.pdf" download="report.pdf">report</a>
<a id="big" href="/files/big.bin" download="big.bin">big</a>`

let host: Awaited<ReturnType<typeof startTestHost>>
let site: FileSite

beforeAll(async () => {
  ;[host, site] = await Promise.all([
    // The cap is the errand's folder's: a client's downloads count against it too (R4-8).
    startTestHost({ ERRANDS_MAX_SESSIONS: '8', ERRANDS_FILES_MAX_ERRAND_BYTES: '5000' }),
    serveFileSite(PAGE, {
      '/files/report.pdf': ['application/pdf', REPORT],
      '/files/big.bin': ['application/octet-stream', BIG],
      '/files/early.bin': ['application/octet-stream', EARLY],
    }),
  ])
})
afterAll(async () => {
  await Promise.all([host?.stop(), site?.close()])
})

/** Waits for `check` (the fixture's `eventually`), failing with what was waited for. */
const until = async (check: () => boolean | Promise<boolean>, what: string): Promise<void> => {
  if (!(await eventually(check))) throw new Error(`waited 15 s for ${what}`)
}

/**
 * A raw client's new tab shows the site's link: asked on the client's own session, as a client
 * would (the engine is not waited for — it saves a download however early, downloadWitness.ts).
 */
const linkShown = (cdp: RawCdp, sessionId: string) =>
  until(async () => {
    const answer = await cdp.send('Runtime.evaluate', { expression: "!!document.getElementById('dl')" }, sessionId)
    return (answer.result as { result?: { value?: unknown } } | undefined)?.result?.value === true
  }, 'the new tab to show the link')

const listed = async (key: string) => (await downloadsOf(host.v1(key))).map((f) => f.name).sort()

/** The host opens `url`, then its own click downloads: it lands and is listed. */
const hostDownloadStillLandsOn = async (key: string, url: string, before: number) => {
  expect((await host.call(key, 'POST', '/v1/navigate', { url })).status).toBe(200)
  await hostDownloadStillLands(key, before)
}

/** The host's own click downloads once more: it lands and is listed (the errand's handling is intact). */
const hostDownloadStillLands = async (key: string, before: number) => {
  expect((await host.v1(key).click({ body: { selector: '#dl' } })).ok).toBe(true)
  await until(async () => (await listed(key)).length === before + 1, 'the host-side download to be listed')
  expect(host.logs.join('\n')).not.toMatch(/download in context .* (failed|canceled)/)
}

describe("a client's downloads: its view, the errand's file (A1, F1)", () => {
  it("Playwright's connectOverCDP: saveAs gives the bytes, the host lists it, later downloads still land", async () => {
    const key = 'dl-playwright'
    const browser = await chromium.connectOverCDP(await host.devtoolsUrl(key))
    const out = mkdtempSync(join(tmpdir(), 'errands-dl-test-'))
    try {
      const context = browser.contexts()[0]!
      const page = context.pages()[0] ?? (await context.newPage())
      await page.goto(`${site.origin}/`)
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#dl')])
      expect(download.suggestedFilename()).toBe('report.pdf')
      await download.saveAs(join(out, 'saved.pdf'))
      expect(readFileSync(join(out, 'saved.pdf')).equals(REPORT)).toBe(true)
      expect(await download.failure()).toBeNull()
      await until(async () => (await listed(key)).includes('report.pdf'), 'the download to be listed')
      expect((await bytesOf(host.v1(key), 'report.pdf'))?.equals(REPORT)).toBe(true)
    } finally {
      await browser.close()
      rmSync(out, { recursive: true, force: true })
    }
    // The client left: the errand's own download handling is as before (a bare connect used to cancel them all).
    await hostDownloadStillLands(key, 1)
  })

  it("Python Playwright's connect_over_cdp: save_as gives the bytes, the host lists it, later ones land", async () => {
    const python = await pythonPlaywright()
    const key = 'dl-python'
    const out = mkdtempSync(join(tmpdir(), 'errands-dl-python-'))
    try {
      const saved = join(out, 'saved.pdf')
      const answer = await python.run('test/clients/python-playwright-child.py', [
        await host.devtoolsUrl(key),
        site.origin,
        saved,
      ])
      expect(JSON.parse(answer)).toEqual({ name: 'report.pdf', failure: null })
      // It used to write a 0-byte file here: the bytes are the site's.
      expect(readFileSync(saved).equals(REPORT)).toBe(true)
      await until(async () => (await listed(key)).includes('report.pdf'), 'the download to be listed')
      expect((await bytesOf(host.v1(key), 'report.pdf'))?.equals(REPORT)).toBe(true)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
    // The Python client left (its process ended): the errand's own downloads still land.
    await hostDownloadStillLands(key, 1)
  })

  it('a bare connect and disconnect leaves the errand downloading', async () => {
    const key = 'dl-bare'
    expect((await host.call(key, 'POST', '/v1/navigate', { url: `${site.origin}/` })).status).toBe(200)
    const browser = await chromium.connectOverCDP(await host.devtoolsUrl(key))
    await browser.close()
    await hostDownloadStillLands(key, 0)
  })

  it("Puppeteer's downloadBehavior: the file in its folder and the errand's, later downloads land", async () => {
    const key = 'dl-puppeteer'
    const folder = mkdtempSync(join(tmpdir(), 'errands-dl-puppeteer-'))
    const browser = await puppeteer.connect({
      browserWSEndpoint: await host.devtoolsUrl(key),
      defaultViewport: null,
      downloadBehavior: { policy: 'allow', downloadPath: folder },
    })
    try {
      const page = (await browser.pages())[0] ?? (await browser.newPage())
      await page.goto(`${site.origin}/`)
      await page.click('#dl')
      await until(async () => readdirSync(folder).includes('report.pdf'), "the file in Puppeteer's folder")
      expect(readFileSync(join(folder, 'report.pdf')).equals(REPORT)).toBe(true)
      await until(async () => (await listed(key)).includes('report.pdf'), 'the download to be listed')
    } finally {
      await browser.disconnect()
      rmSync(folder, { recursive: true, force: true })
    }
    await hostDownloadStillLands(key, 1)
  })

  it('attack: folders the endpoint must not write into get nothing; the errand still has the file', async () => {
    const key = 'dl-attack'
    const cdp = await RawCdp.open(await host.devtoolsUrl(key))
    const other = await RawCdp.open(await host.devtoolsUrl('dl-attack-other'))
    const real = mkdtempSync(join(tmpdir(), 'errands-dl-real-'))
    const link = join(tmpdir(), `errands-dl-link-${process.pid}`)
    symlinkSync(real, link)
    const shared = join(tmpdir(), `errands-dl-shared-${process.pid}`)
    mkdirSync(shared)
    // Any local user could write here (the umask would have narrowed the mode given to mkdir).
    chmodSync(shared, 0o777)
    const otherFolder = ((await other.send('Errands.getFilesFolder')).result as { path: string }).path
    const home = homedir()
    const homeBefore = readdirSync(home)
    try {
      const { sessionId } = await cdp.newPage(`${site.origin}/`)
      await linkShown(cdp, sessionId)
      await cdp.send('Page.enable', {}, sessionId)
      let n = 0
      for (const folder of [home, link, shared, otherFolder, '/etc', 'relative/dir']) {
        const set = await cdp.send('Browser.setDownloadBehavior', {
          behavior: 'allow',
          downloadPath: folder,
          eventsEnabled: true,
        })
        expect(set.error, folder).toBeUndefined()
        const done = cdp.events.length
        await cdp.send('Runtime.evaluate', { expression: "document.getElementById('dl').click()" }, sessionId)
        n++
        await until(
          async () =>
            cdp.events
              .slice(done)
              .some((e) => e.method === 'Browser.downloadProgress' && e.params.state === 'completed'),
          `the download into ${folder} to complete`,
        )
        await until(async () => (await listed(key)).length === n, 'the download to be listed')
      }
      expect(readdirSync(home)).toEqual(homeBefore)
      expect(readdirSync(real)).toEqual([])
      expect(readdirSync(shared)).toEqual([])
      expect(readdirSync(otherFolder)).toEqual([])
      expect(host.logs.some((l) => /named a download folder the endpoint does not write into/.test(l))).toBe(true)
    } finally {
      cdp.close()
      other.close()
      rmSync(link, { force: true })
      rmSync(real, { recursive: true, force: true })
      rmSync(shared, { recursive: true, force: true })
    }
  })

  it("attack: over the errand's cap a client's download is not listed, and it sees it canceled (R4-8)", async () => {
    const key = 'dl-cap'
    const browser = await chromium.connectOverCDP(await host.devtoolsUrl(key))
    try {
      const context = browser.contexts()[0]!
      const page = context.pages()[0] ?? (await context.newPage())
      await page.goto(`${site.origin}/`)
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#big')])
      expect(await download.failure()).toBe('canceled')
      await expect(download.saveAs(join(tmpdir(), `errands-dl-never-${process.pid}`))).rejects.toThrow()
      expect(await listed(key)).toEqual([])
      expect(host.logs.join('\n')).toMatch(/refused: over the errand's folder cap/)
    } finally {
      await browser.close()
    }
    await hostDownloadStillLands(key, 0)
  })
})

// A download before the engine's Playwright has taken the page in (it drops those: a page whose
// first navigation is a download never commits, so it never is) is saved all the same, from
// Chromium's own download events (downloadWitness.ts). A raw client's tab opened straight at an
// attachment makes that race certain.
describe("a download before the engine has taken the client's tab in (F1)", () => {
  it("a tab opened at an attachment: the engine saves and lists it, the client's copy and event arrive", async () => {
    const key = 'dl-early'
    const cdp = await RawCdp.open(await host.devtoolsUrl(key))
    const folder = mkdtempSync(join(tmpdir(), 'errands-dl-early-'))
    try {
      const set = await cdp.send('Browser.setDownloadBehavior', {
        behavior: 'allowAndName',
        downloadPath: folder,
        eventsEnabled: true,
      })
      expect(set.error).toBeUndefined()
      const created = await cdp.send('Target.createTarget', { url: `${site.origin}/files/early.bin` })
      expect(created.error).toBeUndefined()
      await until(async () => (await listed(key)).includes('early.bin'), 'the download to be listed')
      expect((await bytesOf(host.v1(key), 'early.bin'))?.equals(EARLY)).toBe(true)
      // It used to arrive `canceled`, a minute later: now `completed`, once the copy is in place.
      const done = () =>
        cdp.events.find((e) => e.method === 'Browser.downloadProgress' && e.params.state !== 'inProgress')
      await until(() => done() !== undefined, "the client's download event")
      expect(done()!.params.state).toBe('completed')
      expect(readFileSync(join(folder, String(done()!.params.guid))).equals(EARLY)).toBe(true)
      expect(host.logs.join('\n')).not.toMatch(/download in context session:dl-early.* failed/)
    } finally {
      cdp.close()
      rmSync(folder, { recursive: true, force: true })
    }
    await hostDownloadStillLandsOn(key, `${site.origin}/`, 1)
  })
})

// The page-session form agent-browser's `download` sends is replaced as documented, not refused.
describe('Browser.setDownloadBehavior on a page session (agent-browser)', () => {
  it('is answered, its folder gets the copy, and the errand lists the file', async () => {
    const key = 'dl-page-session'
    const cdp = await RawCdp.open(await host.devtoolsUrl(key))
    const folder = mkdtempSync(join(tmpdir(), 'errands-dl-page-'))
    try {
      const { sessionId } = await cdp.newPage(`${site.origin}/`)
      await linkShown(cdp, sessionId)
      await cdp.send('Page.enable', {}, sessionId)
      const set = await cdp.send(
        'Browser.setDownloadBehavior',
        { behavior: 'allowAndName', downloadPath: folder, eventsEnabled: true },
        sessionId,
      )
      expect(set.error).toBeUndefined()
      await cdp.send('Runtime.evaluate', { expression: "document.getElementById('dl').click()" }, sessionId)
      await until(
        async () => cdp.events.some((e) => e.method === 'Page.downloadProgress' && e.params.state === 'completed'),
        'Page.downloadProgress completed',
      )
      const completed = cdp.events.find((e) => e.method === 'Page.downloadProgress' && e.params.state === 'completed')!
      // The event comes after the copy is in place, named by the guid as Chromium names it.
      expect(readFileSync(join(folder, String(completed.params.guid))).equals(REPORT)).toBe(true)
      await until(async () => (await listed(key)).includes('report.pdf'), 'the download to be listed')
      writeFileSync(join(folder, 'untouched'), 'x')
    } finally {
      cdp.close()
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it("agent-browser's download command saves the file where asked, and the errand lists it", async () => {
    const key = 'dl-agent-browser'
    const url = await host.devtoolsUrl(key)
    const home = mkdtempSync(join(tmpdir(), 'errands-agent-browser-dl-'))
    const ab = (...args: Array<string>) =>
      run(agentBrowser, ['--cdp', url, ...args], {
        env: {
          ...process.env,
          HOME: home,
          AGENT_BROWSER_NAMESPACE: 'downloads',
          AGENT_BROWSER_SESSION: 'downloads',
          AGENT_BROWSER_NO_VERSION_CHECK: '1',
        },
        timeout: 60_000,
      })
    try {
      await ab('open', `${site.origin}/`)
      const saved = join(home, 'report.pdf')
      await ab('download', '#dl', saved)
      expect(readFileSync(saved).equals(REPORT)).toBe(true)
      await until(async () => (await listed(key)).includes('report.pdf'), 'the download to be listed')
      await ab('close').catch(() => undefined)
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
    expect(host.logs.filter((l) => /devtools: .* refused for session:dl-agent-browser/.test(l))).toEqual([])
  })
})
