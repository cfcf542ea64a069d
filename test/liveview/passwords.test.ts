/**
 * The live view's Passwords panel (W1, W4; docs/passwords.md, docs/live-view.md) end to end: a
 * real host with its sealed vault, the person's page driven by Playwright in a second headless
 * Chromium. The person adds, edits, removes and imports; the list and the page never hold a
 * password or a TOTP secret after a save. Attacks through the shipped routes: no sign-in, a
 * foreign Origin, oversized bodies, and a hostile errand page reaching for the routes.
 */
import { Vault } from '@errands/passwords'
import { Context, Redacted } from 'effect'
import { lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from '../host/harness.ts'
import { startLiveHarness, type LiveHarness, type Viewer } from './harness.ts'

let h: LiveHarness
let viewer: Viewer

const PASSWORD = 'Pw-first-9f3c2a71'
const CHANGED = 'Pw-second-5b8e0d44'
const TOTP = 'JBSWY3DPEHPK3PXPJBSWY3DP'
const IMPORTED = ['Imp-one-81a7c3', 'Imp-two-2c94e1']
const SECRETS = [PASSWORD, CHANGED, TOTP, ...IMPORTED]

beforeAll(async () => {
  h = await startLiveHarness({ ERRANDS_MAX_SESSIONS: '2' })
  viewer = await h.signedIn()
  await viewer.page.click('button.passwords-toggle')
  await viewer.page.waitForSelector('section.passwords')
})
afterAll(async () => {
  await h?.stop()
})

const vault = () => Context.get(h.host.services as unknown as Context.Context<Vault>, Vault)

/** The panel's rows as the person sees them: site, user name, TOTP. */
const rows = (page: Page) =>
  page.$$eval('table.password-list tbody tr', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent ?? '')),
  )

/** Everything the page holds that a script could read: its markup and every field's value. */
const pageText = (page: Page) =>
  page.evaluate(
    () =>
      document.documentElement.outerHTML +
      [...document.querySelectorAll('input')].map((i) => `\n${i.name}=${i.value}`).join(''),
  )

const expectNoSecret = (text: string) => {
  for (const s of SECRETS) expect(text).not.toContain(s)
}

/** Every regular file of the data dir, as text (a file Chromium removes meanwhile is passed over). */
const dataDirText = (dir: string): string =>
  readdirSync(dir)
    .map((name) => join(dir, name))
    .map((p) => {
      try {
        const s = lstatSync(p)
        return s.isDirectory() ? dataDirText(p) : s.isFile() ? readFileSync(p).toString('latin1') : ''
      } catch {
        return ''
      }
    })
    .join('\n')

describe('the Passwords panel', () => {
  it('adds, lists without the secrets, edits and removes a sign-in (W1, W4)', async () => {
    const page = viewer.page
    await page.fill('form.password-form input[name="site"]', 'shop.example')
    await page.fill('form.password-form input[name="username"]', 'ann')
    await page.fill('form.password-form input[name="password"]', PASSWORD)
    await page.fill('form.password-form input[name="totp"]', TOTP)
    expect(await page.getAttribute('input[name="password"]', 'type')).toBe('password')
    expect(await page.getAttribute('input[name="totp"]', 'type')).toBe('password')
    const listed = page.waitForResponse(
      (r) => r.url().endsWith('/live/api/passwords') && r.request().method() === 'GET',
    )
    await page.click('form.password-form button[type="submit"]')
    const list = await (await listed).text()
    expect(JSON.parse(list).passwords).toMatchObject([{ site: 'shop.example', username: 'ann', totp: true }])
    expectNoSecret(list)
    await expect.poll(() => rows(page)).toEqual([['shop.example', 'ann', 'yes']])
    // Never echoed back: the form is empty after the save, and nothing in the page holds the secrets.
    expect(await page.inputValue('input[name="password"]')).toBe('')
    expectNoSecret(await pageText(page))
    const saved = await h.host.run(vault().forFill('https://shop.example/login', {}))
    expect(Redacted.value(saved.password)).toBe(PASSWORD)

    await page.click('tr[data-site="shop.example"] button:has-text("Edit")')
    expect(await page.inputValue('input[name="password"]')).toBe('')
    await page.fill('form.password-form input[name="username"]', 'anna')
    await page.fill('form.password-form input[name="password"]', CHANGED)
    await page.check('input[name="forgetTotp"]')
    await page.click('form.password-form button[type="submit"]')
    await expect.poll(() => rows(page)).toEqual([['shop.example', 'anna', '—']])
    const changed = await h.host.run(vault().forFill('https://shop.example/login', {}))
    expect([changed.username, Redacted.value(changed.password), changed.totp]).toEqual(['anna', CHANGED, undefined])
    expectNoSecret(await pageText(page))

    await page.click('tr[data-site="shop.example"] button:has-text("Remove")')
    await page.waitForSelector('section.passwords p:has-text("No saved passwords.")')
    expect(await h.host.run(vault().list)).toEqual([])
  })

  it('imports a Chrome CSV export of 3 rows, one refused, naming the row and why but no value', async () => {
    const page = viewer.page
    const csv =
      'name,url,username,password,note\n' +
      `Shop,https://www.shop.example/login,ann,${IMPORTED[0]},\n` +
      `Mail,https://mail.example/,bob,${IMPORTED[1]},\n` +
      'Broken,https://broken.example/,carl,,\n'
    const answered = page.waitForResponse((r) => r.url().endsWith('/live/api/passwords/import'))
    await page.setInputFiles('section.passwords input[name="csv"]', {
      name: 'Chrome Passwords.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    })
    const report = await answered
    expect(report.status()).toBe(200)
    expect(await report.json()).toEqual({
      added: 2,
      updated: 0,
      skipped: 1,
      refused: [{ row: 3, reason: 'no-password' }],
    })
    await page.waitForSelector('.import-report li[data-row="3"]')
    expect(await page.textContent('.import-report')).toContain('row 3: no password')
    expect(await page.textContent('.import-report')).toContain('Imported 2')
    await expect
      .poll(() => rows(page))
      .toEqual([
        ['shop.example', 'ann', '—'],
        ['mail.example', 'bob', '—'],
      ])
    expectNoSecret(await pageText(page))
    const shot = process.env.ERRANDS_SCREENSHOT_DIR
    if (shot !== undefined) {
      const file = join(shot, 'live-view-passwords.png')
      mkdirSync(dirname(file), { recursive: true })
      await page.locator('section.passwords').screenshot({ path: file })
    }
    // The vault on disk is sealed: no password of this run is in the data dir in plain.
    expectNoSecret(dataDirText(h.host.dataDir))
  })
})

describe('attacks on the Passwords routes', () => {
  const own = () => `127.0.0.1:${h.host.port}`
  const json = (live: string | undefined, origin = `http://${own()}`) => ({
    host: own(),
    origin,
    'content-type': 'application/json',
    ...(live === undefined ? {} : { 'x-errands-live': live }),
  })

  it('answers 401 without the sign-in, 403 from a foreign Origin, and changes nothing', async () => {
    const port = h.host.port
    const before = await h.host.run(vault().list)
    const add = JSON.stringify({ site: 'evil.example', username: 'x', password: 'planted-by-attacker' })
    for (const [path, method, body] of [
      ['/live/api/passwords', 'GET', undefined],
      ['/live/api/passwords', 'POST', add],
      ['/live/api/passwords/import', 'POST', JSON.stringify({ csv: 'url,username,password\nhttps://e.example,a,b' })],
      [`/live/api/passwords/${before[0]!.id}`, 'DELETE', undefined],
    ] as const) {
      const unsigned = await request(port, { method, path, headers: json(undefined), body })
      expect([path, method, unsigned.status]).toEqual([path, method, 401])
      // The person's bearer token is not a way in either: only the page's sign-in id is.
      const bearer = await request(port, {
        method,
        path,
        headers: { ...json(undefined), authorization: `Bearer ${h.host.tokenText}` },
        body,
      })
      expect(bearer.status).toBe(401)
      if (method !== 'GET') {
        const foreign = await request(port, { method, path, headers: json(viewer.liveId, 'http://evil.example'), body })
        expect([path, foreign.status, foreign.body.error.code]).toEqual([path, 403, 'ForeignOrigin'])
      }
    }
    const crossSiteRead = await request(port, {
      path: '/live/api/passwords',
      headers: { host: own(), 'x-errands-live': viewer.liveId!, 'sec-fetch-site': 'cross-site' },
    })
    expect(crossSiteRead.status).toBe(403)
    expect(await h.host.run(vault().list)).toEqual(before)
  })

  it('reads 16 KiB for an entry and 1 MiB for an import (413 past them), never quoting a refused value', async () => {
    const port = h.host.port
    const big = await request(port, {
      method: 'POST',
      path: '/live/api/passwords',
      headers: json(viewer.liveId),
      body: JSON.stringify({ site: 'big.example', username: 'b', password: 'x'.repeat(20 * 1024) }),
    })
    expect(big.status).toBe(413)
    // A real export is larger than the API's 16 KiB: 2,000 rows import through the import's own limit.
    const lines = Array.from({ length: 2000 }, (_, i) => `https://s${i}.bulk.example/,u${i},bulk-pw-${i}-abcdef`)
    const bulk = `url,username,password\n${lines.join('\n')}\n`
    expect(bulk.length).toBeGreaterThan(64 * 1024)
    const imported = await request(port, {
      method: 'POST',
      path: '/live/api/passwords/import',
      headers: json(viewer.liveId),
      body: JSON.stringify({ csv: bulk }),
    })
    expect([imported.status, imported.body.skipped]).toEqual([200, 0])
    expect(imported.body.added + imported.body.updated).toBe(2000)
    const huge = await request(port, {
      method: 'POST',
      path: '/live/api/passwords/import',
      headers: json(viewer.liveId),
      body: JSON.stringify({ csv: 'x'.repeat(1024 * 1024 + 1) }),
    })
    expect(huge.status).toBe(413)
    // A refused entry's answer names the field, never the value sent.
    const tooLong = `secret-${'y'.repeat(4100)}`
    const refused = await request(port, {
      method: 'POST',
      path: '/live/api/passwords',
      headers: json(viewer.liveId),
      body: JSON.stringify({ site: 'x.example', username: 'u', password: tooLong }),
    })
    expect(refused.status).toBe(400)
    expect(JSON.stringify(refused.body)).not.toContain('secret-')
    const badTotp = await request(port, {
      method: 'POST',
      path: '/live/api/passwords',
      headers: json(viewer.liveId),
      body: JSON.stringify({ site: 'x.example', username: 'u', password: 'pw-zz-123456', totp: 'not*base32*secret' }),
    })
    expect([badTotp.status, badTotp.body.error.reason]).toEqual([400, 'totp'])
    expect(JSON.stringify(badTotp.body)).not.toContain('not*base32*secret')
    expect(JSON.stringify(badTotp.body)).not.toContain('pw-zz-123456')
  })

  it('a hostile errand page cannot reach them: its fetches get no list and change nothing', async () => {
    const before = await h.host.run(vault().list)
    await h.navigate('hostile', h.site.url('/page?t=Hostile'))
    const base = `http://127.0.0.1:${h.host.port}`
    const reply = await h.host.call('hostile', 'POST', '/v1/evaluate', {
      expression:
        '(async () => { const out = []; for (const [m, body] of [["GET"], ["POST", ' +
        JSON.stringify(JSON.stringify({ site: 'evil.example', username: 'x', password: 'planted-pw-7' })) +
        ']]) { try { const r = await fetch(' +
        JSON.stringify(`${base}/live/api/passwords`) +
        ', { method: m, body, headers: body ? { "content-type": "application/json" } : {} }); ' +
        'out.push(m + " " + r.status + " " + (await r.text())) } catch (e) { out.push(m + " blocked") } } ' +
        'return out })()',
    })
    expect(reply.status).toBe(200)
    const seen = (reply.body as { value: string[] }).value
    for (const line of seen) {
      expect(line).toMatch(/^(GET|POST) (blocked|4\d\d )/)
      expect(line).not.toContain('"passwords"')
      for (const e of before) expect(line).not.toContain(e.id)
    }
    expect(await h.host.run(vault().list)).toEqual(before)
  })

  it("a hostile site open in the person's own browser, beside the signed-in live view, gets no list", async () => {
    const before = await h.host.run(vault().list)
    const hostile = await viewer.context.newPage()
    await hostile.goto(h.site.url('/page?t=Hostile'))
    const seen = await hostile.evaluate(async (base) => {
      const out: string[] = []
      for (const mode of ['cors', 'no-cors'] as const) {
        try {
          const r = await fetch(`${base}/live/api/passwords`, { mode, credentials: 'include' })
          out.push(`${mode} ${r.status} ${await r.text()}`)
        } catch {
          out.push(`${mode} blocked`)
        }
      }
      return out
    }, `http://127.0.0.1:${h.host.port}`)
    await hostile.close()
    for (const line of seen) {
      expect(line).not.toContain('"passwords"')
      for (const e of before) expect(line).not.toContain(e.id)
    }
    expect(await h.host.run(vault().list)).toEqual(before)
  })
})
