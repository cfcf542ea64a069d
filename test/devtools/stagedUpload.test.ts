// Issue #25 (F2) on the DevTools face: a file an agent staged with POST /v1/session/files?name=
// is what a DevTools client puts in a form of the errand's page — Playwright's setInputFiles and
// Puppeteer's uploadFile with the path in the errand's folder (Playwright with `isLocal: true`)
// (`Errands.getFilesFolder` says
// where), a raw CDP client with the bare name — and the site receives its bytes; a path outside
// the errand's folder is refused and the site receives nothing.
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import puppeteer from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useDevToolsHost } from './harness.ts'
import { RawCdp } from './raw.ts'
import { serveFileSite, type FileSite } from '../fixtures/fileSite.ts'

const env = useDevToolsHost(0)

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>upload</title></head><body>
<form id="form" action="/upload" method="post" enctype="multipart/form-data">
<input id="file" type="file" name="f"><button id="send">send</button></form>
</body></html>`

/** The bodies the fixture's /upload received, in order. */
let received: Array<string> = []
let site: FileSite
let origin: string

beforeAll(async () => {
  // The form, and /upload keeping each body it gets.
  site = await serveFileSite(PAGE)
  origin = site.origin
  received = site.received
})
afterAll(async () => {
  await site?.close()
})

/** Session `key` on the form, with `text` staged as `name`; its DevTools URL. */
const staged = async (key: string, name: string, text: string) => {
  const agent = env().host.v1(key)
  expect((await agent.navigate({ body: { url: `${origin}/` } })).ok).toBe(true)
  const reply = await agent.stageFile({ query: { name }, raw: new TextEncoder().encode(text) })
  expect(reply.ok && reply.body).toEqual({ name, size: text.length })
  return env().endpoint(key)
}

describe('a staged file uploaded by a DevTools client (#25)', () => {
  it(
    "Playwright connectOverCDP: setInputFiles with the staged file of the errand's folder; a path outside it is " +
      'refused',
    async () => {
      // isLocal: Playwright names the file's path to the browser (DOM.setFileInputFiles) instead of
      // reading it on its own side and sending the bytes, as it does by default over CDP.
      const browser = await chromium.connectOverCDP(await staged('up-pw', 'note.txt', 'a staged note for playwright'), {
        isLocal: true,
      })
      try {
        const page = browser
          .contexts()[0]!
          .pages()
          .find((p) => p.url().startsWith(origin))!
        const cdp = await browser.newBrowserCDPSession()
        const { path } = (await cdp.send('Errands.getFilesFolder' as never)) as { path: string }
        expect(path).toBe(
          await env().host.run(env().host.chromium.filesDir(env().host.supervisor.contextOf('session:up-pw')!)),
        )

        const count = received.length
        // Playwright retries an action's protocol error until its timeout; the endpoint's refusal is in the log.
        await expect(page.setInputFiles('#file', '/etc/hostname', { timeout: 1500 })).rejects.toThrow(/Timeout 1500ms/)
        expect(env().host.logs.join('\n')).toMatch(
          /devtools: DOM\.setFileInputFiles refused for session:up-pw: only files inside this errand's files folder/,
        )
        expect(await page.evaluate(() => (document.getElementById('file') as HTMLInputElement).files!.length)).toBe(0)

        await page.setInputFiles('#file', join(path, 'note.txt'))
        await Promise.all([page.waitForURL(`${origin}/upload`), page.click('#send')])
        expect(received.slice(count)).toEqual([expect.stringContaining('a staged note for playwright')])
        expect(received.at(-1)).toContain('filename="note.txt"')
      } finally {
        await browser.close()
      }
    },
  )

  it('Puppeteer uploadFile with the staged file; a raw client names it bare; /etc/passwd is refused', async () => {
    const url = await staged('up-pp', 'report.txt', 'a staged report for puppeteer')
    const browser = await puppeteer.connect({ browserWSEndpoint: url, defaultViewport: null })
    try {
      const page = (await browser.pages()).find((p) => p.url().startsWith(origin))!
      const session = await page.createCDPSession()
      const input = (await page.$('input#file'))!
      await expect(input.uploadFile('/etc/passwd')).rejects.toThrow(/only files inside this errand's files folder/)
      const folder = await env().host.run(
        env().host.chromium.filesDir(env().host.supervisor.contextOf('session:up-pp')!),
      )
      const count = received.length
      await input.uploadFile(join(folder, 'report.txt'))
      await Promise.all([page.waitForNavigation(), page.click('#send')])
      expect(received.slice(count)).toEqual([expect.stringContaining('a staged report for puppeteer')])
      await session.detach()
    } finally {
      await browser.disconnect()
    }

    // A raw CDP client needs no path: the bare name is the errand's staged file.
    expect(
      (
        await env()
          .host.v1('up-pp')
          .navigate({ body: { url: `${origin}/` } })
      ).ok,
    ).toBe(true)
    const cdp = await RawCdp.open(await env().endpoint('up-pp'))
    try {
      const targets = (await cdp.send('Target.getTargets')).result!.targetInfos as Array<{
        targetId: string
        type: string
      }>
      const { sessionId } = (
        await cdp.send('Target.attachToTarget', {
          targetId: targets.find((t) => t.type === 'page')!.targetId,
          flatten: true,
        })
      ).result as { sessionId: string }
      const root = (await cdp.send('DOM.getDocument', {}, sessionId)).result!.root as { nodeId: number }
      const { nodeId } = (await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#file' }, sessionId))
        .result as { nodeId: number }
      expect(
        (await cdp.send('DOM.setFileInputFiles', { files: ['passwd'], nodeId }, sessionId)).error?.message,
      ).toMatch(/no such file in this errand's files folder/)
      expect((await cdp.send('DOM.setFileInputFiles', { files: ['..'], nodeId }, sessionId)).error?.message).toMatch(
        /paths must be absolute, or the bare name/,
      )
      expect((await cdp.send('DOM.setFileInputFiles', { files: ['report.txt'], nodeId }, sessionId)).result).toEqual({})
      const read = await cdp.send(
        'Runtime.evaluate',
        { expression: 'document.getElementById("file").files[0].text()', awaitPromise: true, returnByValue: true },
        sessionId,
      )
      expect((read.result!.result as { value: string }).value).toBe('a staged report for puppeteer')
    } finally {
      cdp.close()
    }
  })
})
