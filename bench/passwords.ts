/**
 * What a live stand-in costs a page (W2, docs/passwords.md): while a stand-in lives in an errand, every request of
 * its context pauses in Chromium's `Fetch` so the swap can read it; in an errand holding none, nothing pauses. The
 * same page of 30 subresources is loaded through the real host (`POST /v1/navigate`, which waits for the load) in an
 * errand that holds a stand-in and in one that holds none, interleaved, on one host.
 *
 * @example
 * rows.push(...(await benchPasswords(7)))
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hostSettingsFrom, startHost } from '@errands/host'
import { Effect, Exit, Redacted, Scope } from 'effect'
import { client } from '../test/host/harness.ts'
import { serveSignInSites } from '../test/passwords/site.ts'
import { interleave } from './common.ts'
import { median, type Row } from './table.ts'

const SUBRESOURCES = 30
const SECTION = `passwords: a page of ${SUBRESOURCES} subresources via POST /v1/navigate, with and without a stand-in`
const PIXEL = Buffer.from('R0lGODlhAQABAAAAACwAAAAAAQABAAACAUwAOw==', 'base64')

/** A page of `SUBRESOURCES` images and its images, on any host name. */
const servePages = async () => {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/px')) {
      res.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-store' }).end(PIXEL)
      return
    }
    const round = new URL(req.url ?? '/', 'http://x').searchParams.get('r') ?? '0'
    const images = Array.from({ length: SUBRESOURCES }, (_, i) => `<img src="/px?r=${round}&i=${i}">`).join('')
    res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }).end(`<title>many</title>${images}`)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(r)) }
}

export const benchPasswords = async (rounds: number): Promise<Row[]> => {
  const password = `Pw-${randomBytes(6).toString('hex')}`
  const token = randomBytes(24).toString('base64url')
  const agent = { authorization: `Bearer ${token}` }
  const sites = await serveSignInSites({ password, totp: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' })
  const pages = await servePages()
  const dataDir = mkdtempSync(join(tmpdir(), 'errands-bench-passwords-'))
  const tokens = join(dataDir, 'agent-tokens')
  writeFileSync(tokens, `${token}  bench:*\n`, { mode: 0o600 })
  const settings = Effect.runSync(hostSettingsFrom({ ERRANDS_DATA_DIR: dataDir, ERRANDS_AGENT_TOKENS_FILE: tokens }))
  const scope = Effect.runSync(Scope.make())
  try {
    const host = await Effect.runPromise(
      startHost({
        settings,
        port: 0,
        log: () => undefined,
        daily: false,
        chromium: { warmSpare: false, extraArgs: ['--host-resolver-rules=MAP *.example 127.0.0.1'] },
      }).pipe(Scope.extend(scope)),
    )
    const call = client(host.url, Redacted.value(host.token))
    // An agent's calls carry its token; the person's (no key) the host's.
    const ok = async (key: string | undefined, method: string, path: string, body?: unknown) => {
      const reply = await call(key, method, path, body, key === undefined ? {} : agent)
      if (reply.status !== 200) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`)
      return reply.body
    }
    await ok(undefined, 'POST', '/v1/person/passwords', { site: 'shop.example', username: 'ann', password })
    // Both errands open on the sign-in page; only one fills, so only it holds a stand-in.
    for (const key of ['bench:standin', 'bench:none'])
      await ok(key, 'POST', '/v1/navigate', { url: sites.url('shop.example', '/login') })
    const filled = await ok('bench:standin', 'POST', '/v1/fill-password', { username: '#user', password: '#pass' })
    if (filled.filled !== 2) throw new Error(`the fill filled ${JSON.stringify(filled)}`)
    const expression = "document.querySelector('#pass').value"
    const standIn = String((await ok('bench:standin', 'POST', '/v1/evaluate', { expression })).value)
    let n = 0
    const load = (key: string) => () =>
      ok(key, 'POST', '/v1/navigate', { url: `http://pages.example:${pages.port}/many?r=${++n}` })
    const t = await interleave({ none: load('bench:none'), standin: load('bench:standin') }, rounds, 100)
    // The stand-in lived through every round: sent now, the sign-in site still receives the password instead.
    const send = `fetch('/session', { method: 'POST', body: 'user=ann&pass=${standIn}' }).then((r) => r.status)`
    await ok('bench:standin', 'POST', '/v1/navigate', { url: sites.url('shop.example', '/login?again') })
    await ok('bench:standin', 'POST', '/v1/evaluate', { expression: send })
    const last = sites
      .at('shop.example')
      .filter((h) => h.path === '/session')
      .at(-1)
    if (last === undefined || !last.body.includes(password)) throw new Error('the stand-in did not live through')
    const none = median(t.none!)
    return [
      { section: SECTION, name: 'no stand-in in the errand (nothing pauses)', median: none, ratio: 1 },
      {
        section: SECTION,
        name: 'a stand-in lives in the errand (every request pauses)',
        median: median(t.standin!),
        ratio: median(t.standin!) / none,
      },
    ]
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await Promise.all([sites.close(), pages.close()])
    rmSync(dataDir, { recursive: true, force: true })
  }
}
