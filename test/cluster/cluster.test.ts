/**
 * Several hosts as one (issue #16, K1–K3), against real Postgres and real Chromium: three host
 * processes started like a service manager starts them, one throw-away Postgres, fixture sites
 * that record the Cookie header of every request.
 *
 * One cluster for the file (three Chromiums on two cores are the expensive part); the cases run
 * in order and each leaves the cluster as the next expects it.
 */
import { randomBytes } from 'node:crypto'
import * as Net from 'node:net'
import fc from 'fast-check'
import { loadClusterKey, runnerPsk } from '@errands/cluster'
import { SqlClient } from '@effect/sql'
import { PgClient } from '@effect/sql-pg'
import { Effect, ManagedRuntime, Redacted } from 'effect'
import { chromium, type Browser } from 'playwright-core'
import { WebSocket } from 'ws'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loggingProxy } from '../fixtures/proxies.ts'
import { httpClient } from '../mcp/clients.ts'
import { eventually } from '../fixtures/processes.ts'
import { freePort } from '../fixtures/ports.ts'
import { serveFixture, type Fixture } from '../host/fixtures.ts'
import { startCluster, type ClusterHost, type TestCluster } from './harness.ts'
import { speakRpc } from './wire.ts'
import { serveSignInSites } from '../passwords/site.ts'

let cluster: TestCluster
// The runner's listen address (K1): @effect/cluster's own undocumented variables, set on every host as a stray
// environment would. Read, they moved the runner socket to 0.0.0.0 (here: every host onto one port, so the cluster
// could not even start).
let strayListenPort = 0
let shop: Fixture // 127.0.0.1: the site whose sign-in is taken back
let bank: Fixture // 127.0.0.2: a site that stays
// The default. A third of it is how long a host's shard-lock call may take before it drops every
// shard (@effect/cluster's deadline; docs/cluster.md). 4 s left 1 s, which three Chromiums and
// Postgres on a loaded two-core machine exceed now and then: calls in flight failed with 503, and
// a host leaving while its locks looked lost let its errands resume elsewhere from an older seal.
// 8 s (2.7 s) still tripped at a load average of 25.
const LOCK_EXPIRY_MS = 12_000

beforeAll(async () => {
  ;[shop, bank] = await Promise.all([serveFixture('127.0.0.1'), serveFixture('127.0.0.2')])
  strayListenPort = await freePort()
  cluster = await startCluster(3, {
    lockExpiryMs: LOCK_EXPIRY_MS,
    leastPrivilege: true,
    env: {
      ERRANDS_MAX_SESSIONS: '8',
      ERRANDS_SNAPSHOT_DEBOUNCE_MS: '200',
      LISTEN_HOST: '0.0.0.0',
      LISTEN_PORT: String(strayListenPort),
    },
  })
}, 180_000)

afterEach((ctx) => {
  // What the hosts said, when a case failed (their stderr carries no secrets, L7).
  if (ctx.task.result?.state !== 'fail') return
  // Without the egress's allowed requests: a page load makes several, and they crowd out the cluster's words.
  for (const h of cluster?.hosts ?? []) {
    const lines = h
      .stderr()
      .split('\n')
      .filter((l) => !l.startsWith('egress: allowed'))
    console.log(`--- host ${h.index} (${h.alive() ? 'running' : 'exited'}):\n${lines.slice(-40).join('\n')}`)
  }
})

afterAll(async () => {
  await cluster?.stop()
  await Promise.all([shop?.close(), bank?.close()])
}, 60_000)

const keys = Array.from({ length: 12 }, (_, i) => `k${i}`)

/** The /show requests since `from`: what their Cookie headers held. */
const showCookies = (site: Fixture, from: number) =>
  site.cookies
    .slice(from)
    .filter((c) => c.path === '/show')
    .map((c) => c.cookie ?? '')

/**
 * Every /show request carried exactly `cookie`. There may be more than one: an errand that was
 * parked (its shard moved) reopens its tab at /show when it resumes, before the call navigates.
 */
const expectWire = (wire: ReadonlyArray<string>, cookie: string) => {
  expect(wire.length).toBeGreaterThan(0)
  expect([...new Set(wire)]).toEqual([cookie])
}

/**
 * What /show says in the errand of `key`, read through `host`, and what its requests carried.
 * A navigation that reached the site with no request (seen once in CI, right after a heal
 * reopened the tab at this very URL) is made again, said in the log: the wire is what is judged,
 * so it must carry at least one request.
 */
const show = async (host: ClusterHost, site: Fixture, key: string) => {
  for (let attempt = 1; ; attempt++) {
    const from = site.cookies.length
    expect((await host.call(key, 'POST', '/v1/navigate', { url: site.url('/show') })).status).toBe(200)
    const text = (await host.call(key, 'GET', '/v1/text')).body.text as string
    const wire = showCookies(site, from)
    if (wire.length > 0 || attempt === 3) return { text: text.trim(), wire }
    console.log(
      `cluster: ${key}'s navigation to ${site.url('/show')} through host ${host.index} made no request (page says ` +
        `${JSON.stringify(text.trim())}); again`,
    )
  }
}

/** A POST to `host`'s live view as its page makes it: the host's own Origin, the sign-in id in a header. */
const livePost = (host: ClusterHost) => (path: string, body: unknown, id?: string) =>
  fetch(`${host.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: host.url,
      ...(id === undefined ? {} : { 'x-errands-live': id }),
    },
    body: JSON.stringify(body),
  })

/** Which live host holds each key open now. */
const holders = async () => {
  const out = new Map<string, Array<number>>()
  for (const h of cluster.live()) for (const key of await h.openKeys()) out.set(key, [...(out.get(key) ?? []), h.index])
  return out
}

/**
 * Opens keys `<prefix>0`, `<prefix>1` … through `asked` (each at `url(key)`, with `headers`, pushed
 * to `tried` for the case to release) until one lands on another host: that key and its owner.
 */
const openElsewhere = async (
  asked: ClusterHost,
  prefix: string,
  url: (key: string) => string,
  tried: Array<string>,
  headers?: Record<string, string>,
) => {
  for (let i = 0; i < 12; i++) {
    const key = `${prefix}${i}`
    tried.push(key)
    const opened = await asked.call(key, 'POST', '/v1/navigate', { url: url(key) }, headers)
    expect(opened.status, JSON.stringify(opened.body)).toBe(200)
    const [owner] = (await holders()).get(key) ?? []
    if (owner !== undefined && owner !== asked.index) return { key, owner: cluster.hosts[owner]! }
  }
  throw new Error('no key of twelve landed on another host')
}

/** The HTTP status a DevTools upgrade to `url` is refused with (0: it was taken). */
const upgradeStatus = (url: string) =>
  new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0)
      ws.terminate()
    })
    ws.on('open', () => {
      resolve(0)
      ws.close()
    })
    ws.on('error', (e) => reject(e))
  })

describe('three hosts on one Postgres (K1)', () => {
  it(
    'spreads 12 session keys over the runners; each key reaches the same errand through any host; isolation holds ' +
      'on the wire',
    async () => {
      const [h0, h1, h2] = cluster.hosts as [ClusterHost, ClusterHost, ClusterHost]
      const rotate = [h0, h1, h2]
      for (const [i, key] of keys.entries()) {
        const [a, b, c] = [rotate[i % 3]!, rotate[(i + 1) % 3]!, rotate[(i + 2) % 3]!]
        const opened = await a.call(key, 'POST', '/v1/navigate', { url: shop.url(`/store?v=${key}`) })
        expect(opened.status, JSON.stringify(opened.body)).toBe(200)
        // Through another host: the same errand, with this key's cookie and storage and nobody else's.
        const seen = await show(b, shop, key)
        expect(seen.text).toBe(`cookie=basket=${key} storage=${key}`)
        expectWire(seen.wire, `basket=${key}`)
        // And through the third: the same tabs, ids and all (the owner hands them out).
        const viaA = (await a.call(key, 'GET', '/v1/tabs')).body.tabs
        const viaC = (await c.call(key, 'GET', '/v1/tabs')).body.tabs
        expect(viaC).toEqual(viaA)
        expect(viaA).toHaveLength(1)
      }
      // Each errand is open on exactly one runner, and the keys are spread.
      const held = await holders()
      expect([...held.keys()].sort()).toEqual([...keys].sort())
      expect([...held.values()].every((h) => h.length === 1)).toBe(true)
      const perHost = cluster.hosts.map((h) => [...held.values()].filter((x) => x[0] === h.index).length)
      expect(perHost.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2)
      // Health lists the runners and the shards each holds; together they hold every shard once.
      const reports = await Promise.all(cluster.hosts.map((h) => h.health()))
      for (const r of reports)
        expect(
          r.cluster.runners
            .filter((x) => x.alive)
            .map((x) => x.address)
            .sort(),
        ).toEqual(cluster.hosts.map((h) => h.runner).sort())
      expect(reports.reduce((n, r) => n + r.cluster.shards.here, 0)).toBe(reports[0]!.cluster.shards.total)
      expect(reports.map((r) => r.open)).toEqual(perHost)
      // The runner's own socket is the engine's: no context of its errands may reach it (G2).
      const [k0Owner] = held.get('k0')!
      const refused = await h1.call('k0', 'POST', '/v1/navigate', { url: `http://${cluster.hosts[k0Owner!]!.runner}/` })
      expect(refused.body.error.code).toBe('BlockedByPolicy')
    },
  )

  it(
    'the runner sockets are TLS-PSK (issue #23): a plain TCP peer speaking the RPC gets nothing, nor one with ' +
      'another key, and one that sends nothing is closed at the handshake deadline; each listens where ' +
      "ERRANDS_CLUSTER_HOST:PORT say and its log says so; the hosts' own calls above went over them",
    async () => {
      // A plain TCP peer that connects and stays silent, on every runner; its close is awaited at the end.
      const silentFrom = Date.now()
      const silent = cluster.hosts.map((h) => {
        const conn = Net.connect({ host: '127.0.0.1', port: Number(h.runner.split(':')[1]) })
        conn.on('error', () => {})
        return new Promise<number>((resolve) => conn.on('close', () => resolve(Date.now() - silentFrom)))
      })
      // Where each really listens, in its log, and nothing on the stray variables' address.
      for (const h of cluster.hosts)
        expect(h.stderr()).toContain(`cluster runner socket listening on ${h.runner} (TLS-PSK)`)
      const stray = await new Promise<string>((resolve) => {
        const conn = Net.connect({ host: '127.0.0.1', port: strayListenPort })
        conn.on('connect', () => (conn.destroy(), resolve('connected')))
        conn.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'))
      })
      expect(stray).toBe('ECONNREFUSED')
      const psk = runnerPsk(await loadClusterKey(cluster.keyFile))
      const stranger = runnerPsk(Redacted.make(new Uint8Array(randomBytes(32))))
      for (const h of cluster.hosts) {
        const port = Number(h.runner.split(':')[1])
        // From the path: msgpack frames as a runner sends them, over plain TCP. The runner reads them
        // as a broken TLS hello and closes; not one byte comes back, let alone a Pong.
        expect(await speakRpc(port, { psk: undefined })).toEqual({
          secure: false,
          bytes: 0,
          replies: [],
          closedByRunner: true,
        })
        // TLS with another cluster's key: the handshake fails (the PSK binds its Finished messages).
        expect(await speakRpc(port, { psk: stranger })).toMatchObject({
          secure: false,
          replies: [],
          closedByRunner: true,
        })
        // The control: the same frames with the cluster's key are answered, so the refusals above are the transport's.
        const member = await speakRpc(port, { psk })
        expect(member.secure).toBe(true)
        expect(member.replies.map((r) => r._tag).sort()).toEqual(['Exit', 'Pong'])
      }
      // And the cluster still works over them: every runner alive in every host's view.
      for (const r of await Promise.all(cluster.hosts.map((h) => h.health()))) {
        expect(
          r.cluster.runners
            .filter((x) => x.alive)
            .map((x) => x.address)
            .sort(),
        ).toEqual(cluster.hosts.map((h) => h.runner).sort())
      }
      // The silent peers: closed by the runners once the handshake deadline (ERRANDS_CLUSTER_HANDSHAKE_MS, 5 s by
      // default) passed, not held.
      for (const closedAfterMs of await Promise.all(silent)) expect(closedAfterMs).toBeGreaterThanOrEqual(4_900)
    },
  )

  it(
    "the hosts run as the docs' least-privilege role (issue #23): it reads and writes the tables the owner made, " +
      'and can drop, alter or truncate none',
    async () => {
      const roles = cluster.roles!
      const as = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(roles.hostUrl) }))
      const run = (statement: string) =>
        as.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement))).then(
          (rows) => ({ ok: true as const, rows: rows as ReadonlyArray<Record<string, unknown>> }),
          (e: unknown) => ({ ok: false as const, rows: [], error: String((e as { cause?: unknown }).cause ?? e) }),
        )
      try {
        // What the owner's first start made: the tables and sequences docs/cluster.md lists, owned by it.
        const made = await run(`SELECT c.relname, c.relkind, pg_get_userbyid(c.relowner) AS owner FROM pg_class c
        WHERE c.relnamespace = 'errands'::regnamespace AND c.relkind IN ('r', 'S') ORDER BY c.relname`)
        expect(made.ok).toBe(true)
        expect(made.rows.map((r) => `${r.relkind}:${r.relname}`)).toEqual([
          'r:cluster_messages',
          'S:cluster_messages_rowid_seq',
          'r:cluster_migrations',
          'r:cluster_replies',
          'S:cluster_replies_rowid_seq',
          'r:cluster_runners',
          'S:cluster_runners_machine_id_seq',
          'r:errands_cluster_owners',
          'r:errands_passwords',
          'r:errands_person_settings',
          'r:errands_sealed_records',
        ])
        expect(new Set(made.rows.map((r) => r.owner))).not.toContain(roles.host)
        // The hosts' role reads and writes them (the cases above and below are the proof at scale)…
        expect((await run('SELECT count(*) FROM errands_sealed_records')).ok).toBe(true)
        // …and can do nothing else to them, nor anything to the server.
        for (const statement of [
          'DROP TABLE errands_sealed_records',
          'TRUNCATE cluster_messages',
          'ALTER TABLE cluster_runners ADD COLUMN x int',
          'CREATE ROLE intruder',
          'CREATE DATABASE intruder',
          'SELECT * FROM pg_authid',
        ]) {
          const r = await run(statement)
          expect(r.ok, statement).toBe(false)
          expect(r.ok === false && r.error, statement).toMatch(/must be owner|permission denied/)
        }
      } finally {
        await as.dispose()
      }
    },
  )

  it(
    'a task interrupted through one host is parked by its owner and resumes through another with its ' + 'tabs',
    async () => {
      const [h0, h1, h2] = cluster.hosts as [ClusterHost, ClusterHost, ClusterHost]
      const key = 'parks'
      await h0.call(key, 'POST', '/v1/navigate', { url: bank.url('/store?v=parks') })
      expect((await h0.call(key, 'POST', '/v1/tabs', { url: bank.url('/page?t=second') })).status).toBe(200)
      expect((await h1.call(key, 'POST', '/v1/session/task', { status: 'interrupted' })).body.lifecycle).toBe('parked')
      expect((await h2.call(key, 'GET', '/v1/state')).body.lifecycle).toBe('parked')
      const tabs = (await h2.call(key, 'GET', '/v1/tabs')).body.tabs as Array<{ url: string }>
      expect(tabs.map((t) => t.url).sort()).toEqual([bank.url('/page?t=second'), bank.url('/store?v=parks')].sort())
      const seen = await show(h1, bank, key)
      expect(seen.text).toBe('cookie=basket=parks storage=parks')
      expectWire(seen.wire, 'basket=parks')
      expect((await h2.call(key, 'DELETE', '/v1/session')).status).toBe(200)
    },
  )

  it(
    'an errand opened through a host that does not own it leaves through the upstream proxy the call named, and no ' +
      'host shows its password (L7)',
    async () => {
      const password = 'pw-cluster-3f1e'
      const proxy = await loggingProxy('P', 'pat', password)
      const asked = cluster.hosts[0]!
      const tried: Array<string> = []
      try {
        // The first key whose owner is another host: its proxy has to cross the runners' socket.
        const { key, owner } = await openElsewhere(asked, 'px', (k) => bank.url(`/via/${k}`), tried, {
          'x-browser-proxy': proxy.url,
        })
        await proxy.reached(`/via/${key}`)
        // A later call through the owner itself goes out the same way: the proxy is the errand's.
        expect((await owner.call(key, 'POST', '/v1/navigate', { url: bank.url(`/again/${key}`) })).status).toBe(200)
        await proxy.reached(`/again/${key}`)
        for (const h of cluster.live()) expect(h.stderr()).not.toContain(password)
      } finally {
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
        await proxy.close()
      }
    },
  )

  it(
    "PUT /v1/session/proxy through a host that does not own the errand re-routes the owner's errand, and no host " +
      "but the owner opens a context for it; the live view's own-browser action there is refused with 400 and opens " +
      'nothing (K1, L7)',
    async () => {
      const password = 'pw-cluster-set-9c2d'
      const proxy = await loggingProxy('S', 'set', password)
      const asked = cluster.hosts[2]!
      const tried: Array<string> = []
      /** Open errands on every host, each counted by its own supervisor (`/health`'s `open`). */
      const openCounts = async () => Promise.all(cluster.live().map(async (h) => (await h.health()).open))
      try {
        // Signed in on the owner, without a proxy: the cookie says it is the same errand afterwards.
        const { key, owner } = await openElsewhere(asked, 'sp', (k) => bank.url(`/store?v=${k}`), tried)
        const before = await openCounts()
        // Through a non-owner (the attack: with only the session key), then through the third host too.
        const others = cluster.live().filter((h) => h !== owner)
        for (const via of others) {
          const set = await via.call(key, 'PUT', '/v1/session/proxy', { url: proxy.url })
          expect(set.status, JSON.stringify(set.body)).toBe(200)
          expect(set.body).toEqual({ upstreamProxy: 'set' })
          expect(JSON.stringify(set.body)).not.toContain(password)
        }
        // The owner's errand now leaves through the proxy, with the cookie it had: the same errand.
        const seen = await show(asked, bank, key)
        expect(seen.text).toBe(`cookie=basket=${key} storage=${key}`)
        expectWire(seen.wire, `basket=${key}`)
        await proxy.reached('/show')
        // One context, the owner's: no other host's supervisor opened one, by key and by count.
        expect((await holders()).get(key)).toEqual([owner.index])
        expect(await openCounts()).toEqual(before)

        // The live view's own-browser action for the session, on a host that does not own it: a task is always
        // isolated, so 400 — and nothing named after the session opens there.
        const post = livePost(asked)
        const signIn = await post('/live/sign-in', { token: asked.token })
        expect(signIn.status).toBe(200)
        const { id } = (await signIn.json()) as { id: string }
        for (const on of [true, false]) {
          const toggled = await post(
            `/live/api/conversations/${encodeURIComponent(`session:${key}`)}/own-browser`,
            { on },
            id,
          )
          expect(toggled.status, await toggled.clone().text()).toBe(400)
          expect(((await toggled.json()) as { error: unknown }).error).toMatchObject({
            code: 'InvalidRequest',
            reason: 'tasks-always-isolated',
          })
        }
        expect((await holders()).get(key)).toEqual([owner.index])
        expect(await openCounts()).toEqual(before)
        for (const h of cluster.live()) expect(h.stderr()).not.toContain(password)
      } finally {
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
        await proxy.close()
      }
    },
  )

  it(
    'a DevTools URL asked of a host that does not own the errand is minted by the owner: the client drives the one ' +
      'context there is (A1)',
    async () => {
      const asked = cluster.hosts[1]!
      const tried: Array<string> = []
      let browser: Browser | undefined
      try {
        // The first key whose owner is another host than the one asked.
        const { key, owner } = await openElsewhere(asked, 'dt', (k) => shop.url(`/store?v=${k}`), tried)
        const reply = await asked.call(key, 'GET', '/v1/session/devtools')
        expect(reply.status, JSON.stringify(reply.body)).toBe(200)
        expect(reply.body.url).toMatch(new RegExp(`^${owner.url.replace('http://', 'ws://')}/devtools/`))
        // Still one context, on the owner: the asked host opened none of its own.
        expect((await holders()).get(key)).toEqual([owner.index])
        // A client that takes the owner's token to the host it asked gets no way in there: the token is the owner's
        // listener's (docs/adr/0053-data-only-verbs-cross-the-cluster.md), and the asked host opens nothing for it.
        const token = (reply.body.url as string).slice((reply.body.url as string).lastIndexOf('/devtools/'))
        expect(await upgradeStatus(`${asked.url.replace('http://', 'ws://')}${token}`)).toBe(404)
        expect((await holders()).get(key)).toEqual([owner.index])

        browser = await chromium.connectOverCDP(reply.body.url as string)
        const page = browser.contexts()[0]!.pages()[0]!
        await page.goto(shop.url(`/store?v=via-devtools-${key}`))
        // One cookie jar: what the client set is what every host's verbs see, on the wire too.
        const seen = await show(cluster.hosts[2]!, shop, key)
        expect(seen.text).toBe(`cookie=basket=via-devtools-${key} storage=via-devtools-${key}`)
        expectWire(seen.wire, `basket=via-devtools-${key}`)
        expect((await holders()).get(key)).toEqual([owner.index])
      } finally {
        await browser?.close()
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
      }
    },
  )

  it(
    "the page tools (#25) asked of a host that does not own the errand run on the owner's page: evaluate, console, " +
      "network, and a page's throw as the owner's 422",
    async () => {
      const asked = cluster.hosts[2]!
      const tried: Array<string> = []
      try {
        const { key, owner } = await openElsewhere(asked, 'tools', (k) => shop.url(`/page?t=tools-${k}`), tried)
        const evaluated = await asked.call(key, 'POST', '/v1/evaluate', {
          expression: `console.log("via the owner"), ({ title: document.title })`,
        })
        expect(evaluated.status, JSON.stringify(evaluated.body)).toBe(200)
        expect(evaluated.body).toMatchObject({ value: { title: `tools-${key}` }, truncated: false })
        const logged = await owner.call(key, 'GET', '/v1/console')
        expect(logged.body.messages).toEqual(
          expect.arrayContaining([expect.objectContaining({ type: 'log', text: 'via the owner' })]),
        )
        const requests = (await asked.call(key, 'GET', '/v1/network')).body.requests as Array<{
          url: string
          status: number | null
        }>
        expect(requests).toEqual(
          expect.arrayContaining([expect.objectContaining({ url: shop.url(`/page?t=tools-${key}`), status: 200 })]),
        )
        const thrown = await asked.call(key, 'POST', '/v1/evaluate', { expression: 'null.boom' })
        expect(thrown.status).toBe(422)
        expect(thrown.body.error.message).toMatch(/the page threw/)
        const path = await asked.call(key, 'POST', '/v1/upload', { selector: '#file', names: ['../x'] })
        expect(path.status).toBe(400)
        expect((await holders()).get(key)).toEqual([owner.index])
      } finally {
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
      }
    },
  )

  it(
    'Allow asked of a host that does not own the errand lends into the one the owner has open, with the asked ' +
      "host's sign-in; allow-always and the trust mode told to one host are what every host reads (#24, " +
      'L2)',
    async () => {
      const asked = cluster.hosts[1]!
      const tried: Array<string> = []
      try {
        // The first key whose owner is another host than the one asked.
        const { key, owner } = await openElsewhere(asked, 'ln', (k) => bank.url(`/page?t=${k}`), tried)
        // The person is signed in to the shop in the asked host's main browser (and otherwise in the owner's).
        expect(
          (await asked.call(undefined, 'POST', '/v1/person/main/navigate', { url: shop.url('/store?v=main-asked') }))
            .status,
        ).toBe(200)
        expect(
          (await owner.call(undefined, 'POST', '/v1/person/main/navigate', { url: shop.url('/store?v=main-owner') }))
            .status,
        ).toBe(200)

        const lent = await asked.call(undefined, 'POST', '/v1/person/lend', { session: key, site: '127.0.0.1' })
        expect(lent.status, JSON.stringify(lent.body)).toBe(200)
        // Into the errand open on its owner — not into a sealed copy the owner's next park overwrites.
        expect(lent.body).toMatchObject({
          site: '127.0.0.1',
          conversationId: `session:${key}`,
          where: 'open',
          cookies: ['basket@127.0.0.1'],
        })
        expect((await holders()).get(key)).toEqual([owner.index])
        // On the wire: the errand sends the sign-in of the browser the person pressed Allow in.
        const third = cluster.hosts.find((h) => h !== asked && h !== owner)!
        expectWire((await show(third, shop, key)).wire, 'basket=main-asked')
        expect((await holders()).get(key)).toEqual([owner.index])
        // And it survives the owner's park: lent into its context, sealed with it, back on resume.
        expect((await asked.call(key, 'POST', '/v1/session/task', { status: 'interrupted' })).body.lifecycle).toBe(
          'parked',
        )
        expectWire((await show(asked, shop, key)).wire, 'basket=main-asked')
        expect((await holders()).get(key)).toHaveLength(1)
      } finally {
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
      }

      // Allow always, told to host 0, is what hosts 1 and 2 read; the trust mode told to host 2 likewise.
      const [h0, h1, h2] = cluster.hosts as [ClusterHost, ClusterHost, ClusterHost]
      const site = 'everywhere.example'
      try {
        expect(
          (await h0.call(undefined, 'POST', '/v1/person/settings/always-allowed', { site: `www.${site}` })).status,
        ).toBe(200)
        for (const h of [h1, h2])
          expect(
            (await h.call(undefined, 'GET', '/v1/person/settings')).body.alwaysAllowed,
            `host ${h.index}`,
          ).toContain(site)
        expect((await h2.call(undefined, 'PUT', '/v1/person/settings/trust', { mode: 'auto' })).status).toBe(200)
        for (const h of [h0, h1])
          expect((await h.call(undefined, 'GET', '/v1/person/settings')).body.trust, `host ${h.index}`).toBe('auto')
      } finally {
        expect((await h1.call(undefined, 'DELETE', `/v1/person/settings/always-allowed/${site}`)).status).toBe(200)
        expect((await h0.call(undefined, 'PUT', '/v1/person/settings/trust', { mode: 'ask' })).status).toBe(200)
      }
      // A revoke told to one host took it off the list every host reads.
      for (const h of cluster.hosts)
        expect((await h.call(undefined, 'GET', '/v1/person/settings')).body).toMatchObject({
          alwaysAllowed: [],
          trust: 'ask',
        })
    },
  )

  it(
    'the live view of a host that does not own the errand lists it with its owner, and its Park, Resume and stream ' +
      "act on the owner's: no second context (V1)",
    async () => {
      const asked = cluster.hosts[2]!
      const tried: Array<string> = []
      // The person signs in to the asked host's live view as its page does (the id goes in a header).
      const post = livePost(asked)
      try {
        const { key, owner } = await openElsewhere(asked, 'lv', (k) => shop.url(`/store?v=${k}`), tried)
        const signIn = await post('/live/sign-in', { token: asked.token })
        expect(signIn.status).toBe(200)
        const { id } = (await signIn.json()) as { id: string }
        const conversation = encodeURIComponent(`session:${key}`)

        const parked = await post(`/live/api/conversations/${conversation}/park`, {}, id)
        expect(parked.status, await parked.clone().text()).toBe(200)
        expect((await owner.call(key, 'GET', '/v1/state')).body.lifecycle).toBe('parked')
        expect((await holders()).get(key)).toBeUndefined()

        const resumed = await post(`/live/api/conversations/${conversation}/resume`, {}, id)
        expect(resumed.status, await resumed.clone().text()).toBe(200)
        expect((await holders()).get(key)).toEqual([owner.index])

        // The asked host lists it as open on its owner, not as a sealed copy of its own.
        const state = await fetch(`${asked.url}/live/api/state`, {
          headers: { origin: asked.url, 'x-errands-live': id },
        })
        const { conversations } = (await state.json()) as {
          conversations: Array<{ conversationId: string; state: string; heldBy?: string }>
        }
        expect(conversations.find((c) => c.conversationId === `session:${key}`)).toMatchObject({
          state: 'active',
          heldBy: owner.runner,
        })
        // Watching it here streams the owner's page: frames come, and still one context.
        const socket = new WebSocket(`${asked.url.replace('http://', 'ws://')}/live/socket`, ['errands-live', id], {
          headers: { origin: asked.url },
        })
        const streamed = await new Promise<{ frame: Buffer; tab: { url: string } | null }>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no frame of the errand held elsewhere in 20 s')), 20_000)
          let tab: { url: string } | null = null
          socket.on('open', () => socket.send(JSON.stringify({ type: 'watch', conversationId: `session:${key}` })))
          socket.on('message', (data) => {
            const m = JSON.parse(String(data)) as {
              type: string
              conversationId?: string
              tab?: { url: string } | null
              seq?: number
              data?: string
            }
            if (m.type === 'watching' && m.conversationId === `session:${key}`) tab = m.tab ?? null
            if (m.type === 'frame' && m.conversationId === `session:${key}`) {
              socket.send(JSON.stringify({ type: 'ack', seq: m.seq }))
              clearTimeout(timer)
              resolve({ frame: Buffer.from(m.data!, 'base64'), tab })
            }
          })
          socket.on('error', reject)
        }).finally(() => socket.close())
        expect(streamed.frame.subarray(0, 2).toString('hex')).toBe('ffd8')
        expect(streamed.tab?.url).toBe(shop.url(`/store?v=${key}`))
        expect((await holders()).get(key)).toEqual([owner.index])
        // The one errand, with what it held before the park: one cookie jar, on the wire too.
        const seen = await show(asked, shop, key)
        expect(seen.text).toBe(`cookie=basket=${key} storage=${key}`)
        expectWire(seen.wire, `basket=${key}`)
        expect((await holders()).get(key)).toEqual([owner.index])
      } finally {
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
      }
    },
  )

  it(
    "MCP over HTTP on a host that does not own the errand drives the owner's: snapshot, click, type and screenshot " +
      'answer, and there is one context (A2)',
    async () => {
      const asked = cluster.hosts[0]!
      const tried: Array<string> = []
      let mcp: Awaited<ReturnType<typeof httpClient>> | undefined
      try {
        const { key, owner } = await openElsewhere(asked, 'mc', (k) => shop.url(`/store?v=${k}`), tried)
        mcp = await httpClient(asked.url, { key })
        const form = await mcp.call('browser_navigate', { url: shop.url('/form') })
        expect(form.isError, form.text).toBe(false)
        // The tools that work on the page itself (refs of a snapshot) ran on the owner's page.
        const snapshot = await mcp.call('browser_snapshot')
        expect(snapshot.isError, snapshot.text).toBe(false)
        const typed = await mcp.call('browser_type', {
          element: 'the box',
          ref: mcp.refOf(snapshot.text, /textbox/),
          text: 'via-mcp',
        })
        expect(typed.isError, typed.text).toBe(false)
        const clicked = await mcp.call('browser_click', { element: 'go', ref: mcp.refOf(typed.text, /button "go"/) })
        expect(clicked.isError, clicked.text).toBe(false)
        expect(clicked.text).toContain('clicked:via-mcp')
        const shot = await mcp.call('browser_take_screenshot')
        expect(shot.isError, shot.text).toBe(false)
        expect(shot.images[0]!.data.subarray(1, 4).toString()).toBe('PNG')
        expect((await holders()).get(key)).toEqual([owner.index])
        // The same errand, seen through a third host: its title is what the MCP client's click set.
        const third = cluster.hosts.find((h) => h !== asked && h !== owner)!
        expect((await third.call(key, 'GET', '/v1/tabs')).body.tabs[0].title).toBe('clicked:via-mcp')
      } finally {
        await mcp?.end()
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
      }
    },
  )

  it(
    'SIGKILL a runner with its open errands: they heal on the others from their last sealed snapshot, with tabs; a ' +
      'revocation while it was down reached its sealed rows (K3, L5)',
    async () => {
      const held = await holders()
      // The runner holding the most of the 12 (about 4).
      const victim = [...cluster.hosts].sort(
        (a, b) =>
          [...held.values()].filter((h) => h[0] === b.index).length -
          [...held.values()].filter((h) => h[0] === a.index).length,
      )[0]!
      const victimKeys = [...held]
        .filter(([, h]) => h[0] === victim.index)
        .map(([k]) => k)
        .sort()
      const survivors = cluster.hosts.filter((h) => h !== victim)
      expect(victimKeys.length).toBeGreaterThanOrEqual(1)
      // A second tab on a site that stays, sealed with the debounced snapshot (H1) before the kill.
      for (const key of victimKeys) {
        const before = await cluster.sealed(key)
        expect(
          (await survivors[0]!.call(key, 'POST', '/v1/tabs', { url: bank.url(`/store?v=${key}-bank`) })).status,
        ).toBe(200)
        expect(await eventually(async () => (await cluster.sealed(key)) !== before, 15_000, 100)).toBe(true)
      }
      // A lend answered `where: open` right before the owner goes (K3, L2): sealed before it was answered, so it
      // comes back with the heal. The person is signed in to the bank in a survivor's main browser.
      const lentKey = victimKeys[0]!
      expect(
        (await survivors[0]!.call(undefined, 'POST', '/v1/person/main/navigate', { url: bank.url('/store?v=lent') }))
          .status,
      ).toBe(200)
      const sealedBeforeLend = await cluster.sealed(lentKey)
      const lent = await survivors[0]!.call(undefined, 'POST', '/v1/person/lend', {
        session: lentKey,
        site: '127.0.0.2',
      })
      expect(lent.status, JSON.stringify(lent.body)).toBe(200)
      expect(lent.body).toMatchObject({ conversationId: `session:${lentKey}`, where: 'open' })
      // Down the moment the 200 is in: frozen (it can neither answer, seal nor clean anything from here on, as
      // killed), until the others see it gone; killed below.
      victim.child.kill('SIGSTOP')
      // The seal landed before the answer: its row changed, with no page load since the lend.
      expect(await cluster.sealed(lentKey)).not.toBe(sealedBeforeLend)
      expect(
        await eventually(
          async () =>
            (await survivors[0]!.health()).cluster.runners.find((r) => r.address === victim.runner)?.alive === false,
          LOCK_EXPIRY_MS * 5,
          200,
        ),
      ).toBe(true)
      // The person takes the shop's sign-ins back meanwhile, through a survivor.
      const revoked = await survivors[0]!.call(undefined, 'DELETE', `/v1/person/settings/always-allowed/127.0.0.1`)
      expect(revoked.status).toBe(200)
      const moved = revoked.body.errands as Array<{ conversationId: string; where: string }>
      for (const key of victimKeys) {
        // Its errands were reached in their sealed rows: nobody had them open.
        expect(moved.filter((m) => m.conversationId === `session:${key}`).map((m) => m.where)).toContain('parked')
      }
      // Now killed without a goodbye; its shards move, its errands come back on the others.
      const killedAt = Date.now()
      victim.child.kill('SIGKILL')
      await victim.exited
      expect(
        await eventually(
          async () => {
            const now = await holders()
            return victimKeys.every((k) => (now.get(k) ?? []).length === 1 && !now.get(k)!.includes(victim.index))
          },
          60_000,
          100,
        ),
      ).toBe(true)
      const healedInMs = Date.now() - killedAt
      console.log(
        `cluster: ${victimKeys.length} errands of a SIGKILLed runner healed on the others in ${healedInMs} ms (lock ` +
          `expiry ${LOCK_EXPIRY_MS} ms)`,
      )
      expect(healedInMs).toBeLessThan(LOCK_EXPIRY_MS * 5)
      expect(await eventually(() => victim.chromium() === 0, 15_000)).toBe(true)
      await cluster.settled()

      const now = await holders()
      for (const key of victimKeys) {
        const owner = cluster.hosts[now.get(key)![0]!]!
        const reader = survivors.find((h) => h !== owner) ?? owner
        const listed = await reader.call(key, 'GET', '/v1/tabs')
        expect(
          listed.status,
          `${key} through host ${reader.index} (owner ${owner.index}): ${JSON.stringify(listed.body)}`,
        ).toBe(200)
        const tabs = listed.body.tabs as Array<{ url: string }>
        expect(tabs.map((t) => t.url).sort()).toEqual([bank.url(`/store?v=${key}-bank`), shop.url('/show')].sort())
        const bankSeen = await show(reader, bank, key)
        if (key === lentKey) {
          // The lent sign-in is on the wire after the heal: the survivor's main-browser cookie, not the errand's own.
          expectWire(bankSeen.wire, 'basket=lent')
          expect(bankSeen.text).toMatch(/^cookie=basket=lent /)
        } else expect(bankSeen.text).toBe(`cookie=basket=${key}-bank storage=${key}-bank`)
        const shopSeen = await show(reader, shop, key)
        expectWire(shopSeen.wire, '')
        // Health on the new owner says so, in words (H3).
        const words = (await owner.health()).messages.map((m) => m.text)
        expect(words).toContain(`Reopened a task's browser as it was: its host ${victim.runner} left the cluster.`)
      }
      // The others lost the revoked site too, wherever they were (the take-back reached both
      // survivors; a shard that moved between them parked its errand, which resumes on this call).
      for (const key of keys.filter((k) => !victimKeys.includes(k))) {
        expectWire((await show(survivors[1]!, shop, key)).wire, '')
      }
      expect([...(await holders()).values()].every((h) => h.length === 1)).toBe(true)
    },
  )

  // One fixed-seed run in CI; CLUSTER_PROPERTY_RUNS=N runs N more with random seeds. (Its one CI
  // failure, 2026-12-03: an errand opened just before the kill had no sealed snapshot yet, and
  // the case wanted it back — it now must start afresh, said in health.)
  it(
    'no errand is ever open on two runners at once, over random calls and a random SIGKILL (property, ' + 'bounded)',
    async () => {
      const pool = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5']
      const twice: Array<string> = []
      /**
       * Polls who holds what while `work` runs; a key seen on two live runners in two polls in a
       * row is recorded. (One poll reads the hosts one after another: a hand-over between two
       * reads — parked on the first just after it was read, resumed on the second — shows once;
       * two contexts at once would show again.)
       */
      const watching = async <A>(work: () => Promise<A>): Promise<A> => {
        let done = false
        const watcher = (async () => {
          let seen = new Set<string>()
          while (!done) {
            const now = new Set<string>()
            for (const [key, h] of await holders().catch(() => new Map<string, Array<number>>())) {
              if (h.length < 2) continue
              const at = `${key}@${[...h].sort().join('+')}`
              if (seen.has(at)) twice.push(at)
              now.add(at)
            }
            seen = now
            await new Promise((r) => setTimeout(r, 50))
          }
        })()
        try {
          return await work()
        } finally {
          done = true
          await watcher
        }
      }
      type Step =
        | { readonly op: 'call'; readonly key: number; readonly via: number }
        | { readonly op: 'kill'; readonly via: number }
      const call = fc.record({
        op: fc.constant('call' as const),
        key: fc.integer({ min: 0, max: pool.length - 1 }),
        via: fc.nat(),
      })
      // Random calls through random hosts with exactly one SIGKILL of a random runner somewhere
      // among them: one kill per run keeps it bounded (and two runners alive for the next case).
      const steps = fc
        .tuple(fc.array(call, { minLength: 5, maxLength: 5 }), fc.integer({ min: 0, max: 5 }), fc.nat())
        .map(([calls, at, via]): Array<Step> => [...calls.slice(0, at), { op: 'kill', via }, ...calls.slice(at)])
      await fc.assert(
        fc.asyncProperty(steps, async (steps) => {
          // Back to three runners: one joins (its shards move to it, their errands park and resume there).
          while (cluster.live().length < 3) await cluster.add()
          expect(await cluster.settled(60_000)).toBe(true)
          twice.length = 0
          for (const [i, s] of steps.entries()) {
            const live = cluster.live()
            const host = live[s.via % live.length]!
            if (s.op === 'kill') {
              // A key opened on the victim just before the kill, most likely before its first
              // snapshot is sealed: the case that has nothing to heal from.
              let fresh: string | undefined
              for (let j = 0; j < 16 && fresh === undefined; j++) {
                const key = `fresh-${i}-${j}`
                const opened = await host.call(key, 'POST', '/v1/navigate', { url: bank.url(`/store?v=${key}`) })
                expect(opened.status, JSON.stringify(opened.body)).toBe(200)
                if ((await host.openKeys()).includes(key)) fresh = key
              }
              const before = [...(await holders()).keys()]
              const its = await host.openKeys()
              await watching(async () => {
                host.child.kill('SIGKILL')
                await host.exited
                // The dead runner's open errands that had a sealed snapshot are open again, once.
                // One opened just before the kill may have none yet (H1: a snapshot follows a load
                // by the debounce): nothing can bring it back, and its next use starts it afresh.
                const sealed = (
                  await Promise.all(its.map(async (k) => ((await cluster.sealed(k)) === undefined ? [] : [k])))
                ).flat()
                console.log(
                  `cluster property: SIGKILL of ${host.runner} with ${its.length} open (${fresh ?? 'no fresh key'} ` +
                    `among them), ${its.length - sealed.length} not sealed yet`,
                )
                const back = await eventually(
                  async () => {
                    const now = await holders()
                    return sealed.every((k) => (now.get(k) ?? []).length === 1)
                  },
                  60_000,
                  100,
                )
                expect(
                  back,
                  `${sealed.join(',')} (sealed) of ${its.join(',')} of ${host.runner}; now ` +
                    `${JSON.stringify([...(await holders())])}`,
                ).toBe(true)
                // The unsealed ones: no healer asks for them again (their rows go), the health of
                // their new owner says they start afresh, and their next use does.
                for (const key of its.filter((k) => !sealed.includes(k))) {
                  expect(
                    await eventually(async () => (await cluster.owner(key)) === undefined, 30_000, 100),
                    `${key}'s owner row`,
                  ).toBe(true)
                  const said = await eventually(
                    async () => {
                      for (const h of cluster.live())
                        if (
                          (await h.health()).messages.some((m) =>
                            m.text.includes('before its first snapshot was sealed starts afresh'),
                          )
                        )
                          return true
                      return false
                    },
                    30_000,
                    200,
                  )
                  expect(said, `health about ${key}`).toBe(true)
                  expect(
                    (
                      await cluster
                        .live()[0]!
                        .call(key, 'POST', '/v1/navigate', { url: bank.url(`/store?v=${key}-again`) })
                    ).status,
                  ).toBe(200)
                }
              })
              // Nothing was lost: the others are open, or parked where a shard moved between two
              // survivors (the new ring can move a few; their errands park and resume on next use).
              for (const key of before) {
                const state = (await cluster.live()[0]!.call(key, 'GET', '/v1/state')).body.lifecycle
                expect(['active', 'parked'], key).toContain(state)
              }
              continue
            }
            const key = pool[s.key]!
            await watching(async () => {
              const r = await host.call(key, 'POST', '/v1/navigate', { url: bank.url(`/store?v=${key}-${i}`) })
              expect(r.status).toBe(200)
            })
          }
          expect(twice).toEqual([])
          expect(
            await eventually(async () => [...(await holders()).values()].every((h) => h.length === 1), 15_000, 100),
          ).toBe(true)
        }),
        process.env.CLUSTER_PROPERTY_RUNS === undefined
          ? { numRuns: 1, seed: 1616, endOnFailure: true }
          : { numRuns: Number(process.env.CLUSTER_PROPERTY_RUNS), endOnFailure: true },
      )
      // The next case wants two live runners.
      while (cluster.live().length < 2) await cluster.add()
      expect(await cluster.settled(60_000)).toBe(true)
    },
  )

  it(
    'a host that leaves gracefully parks its errands before its shards go; they resume on another with cookies, ' +
      'storage and tabs',
    async () => {
      const live = cluster.live()
      expect(live.length).toBeGreaterThanOrEqual(2)
      const held = await holders()
      const [leaving, staying] = [...live].sort(
        (a, b) =>
          [...held.values()].filter((h) => h[0] === b.index).length -
          [...held.values()].filter((h) => h[0] === a.index).length,
      ) as [ClusterHost, ClusterHost]
      const leavingKeys = [...held].filter(([, h]) => h[0] === leaving.index).map(([k]) => k)
      expect(leavingKeys.length).toBeGreaterThanOrEqual(1)
      for (const key of leavingKeys)
        await staying.call(key, 'POST', '/v1/navigate', { url: bank.url(`/store?v=${key}-late`) })
      const tabsBefore = new Map<string, unknown>()
      for (const key of leavingKeys)
        tabsBefore.set(
          key,
          ((await staying.call(key, 'GET', '/v1/tabs')).body.tabs as Array<{ url: string }>).map((t) => t.url).sort(),
        )
      leaving.child.kill('SIGTERM')
      expect(await leaving.exited).toBe(0)
      expect(leaving.chromium()).toBe(0)
      expect(await cluster.settled()).toBe(true)
      for (const key of leavingKeys) {
        expect((await staying.call(key, 'GET', '/v1/state')).body.lifecycle).toBe('parked')
        const listed = await staying.call(key, 'GET', '/v1/tabs')
        expect(listed.status, JSON.stringify(listed.body)).toBe(200)
        const tabs = (listed.body.tabs as Array<{ url: string }>).map((t) => t.url).sort()
        expect(tabs).toEqual(tabsBefore.get(key))
        expect((await show(staying, bank, key)).text).toBe(`cookie=basket=${key}-late storage=${key}-late`)
      }
      const now = await holders()
      for (const key of leavingKeys) expect(now.get(key), key).toHaveLength(1)
    },
  )

  it(
    "the wheel of an errand another host holds is taken, driven and handed back through any host, on the owner's " +
      "page; MCP's acting tools through the asked host are refused meanwhile (K4, P1, P2)",
    async () => {
      while (cluster.live().length < 2) await cluster.add()
      expect(await cluster.settled(60_000)).toBe(true)
      const asked = cluster.live()[0]!
      const tried: Array<string> = []
      let mcp: Awaited<ReturnType<typeof httpClient>> | undefined
      const post = livePost(asked)
      try {
        const { key, owner } = await openElsewhere(asked, 'wh', () => shop.url('/form'), tried)
        const driving = async () =>
          (
            (await owner.call(undefined, 'GET', '/v1/person/sessions')).body.sessions as Array<{
              conversationId: string
              personDriving?: boolean
            }>
          ).find((s) => s.conversationId === `session:${key}`)?.personDriving === true
        // Where the box and the button are, asked before the wheel is taken (evaluate acts).
        const at = await asked.call(key, 'POST', '/v1/evaluate', {
          expression:
            `(() => { const c = (s) => { const b = document.querySelector(s).getBoundingClientRect(); return ` +
            `{ x: b.x + b.width / 2, y: b.y + b.height / 2 } }; return { q: c('#q'), go: c('#go') } })()`,
        })
        expect(at.status, JSON.stringify(at.body)).toBe(200)
        const { q, go } = at.body.value as { q: { x: number; y: number }; go: { x: number; y: number } }
        mcp = await httpClient(asked.url, { key })
        const snapshot = await mcp.call('browser_snapshot')
        expect(snapshot.isError, snapshot.text).toBe(false)

        // The person takes the wheel through the host that does not hold the errand: the owner's errand is driven.
        const taken = await asked.call(undefined, 'POST', '/v1/person/wheel', { session: key })
        expect(taken.status, JSON.stringify(taken.body)).toBe(200)
        expect(taken.body).toMatchObject({ conversationId: `session:${key}`, state: 'active', personDriving: true })
        expect(await driving()).toBe(true)
        expect((await holders()).get(key)).toEqual([owner.index])
        // The asked host's live view shows it driven, as its owner says.
        const signIn = await post('/live/sign-in', { token: asked.token })
        expect(signIn.status).toBe(200)
        const { id } = (await signIn.json()) as { id: string }
        const listed = async () => {
          const state = await fetch(`${asked.url}/live/api/state`, {
            headers: { origin: asked.url, 'x-errands-live': id },
          })
          return (
            (await state.json()) as {
              conversations: Array<{ conversationId: string; personDriving?: boolean; heldBy?: string }>
            }
          ).conversations.find((c) => c.conversationId === `session:${key}`)
        }
        expect(await listed()).toMatchObject({ heldBy: owner.runner, personDriving: true })

        // Meanwhile the agent is refused through the asked host, over HTTP and over MCP (the owner answers).
        const navigated = await asked.call(key, 'POST', '/v1/navigate', { url: shop.url('/page?t=agent') })
        expect(navigated.status).toBe(409)
        expect(navigated.body.error.code).toBe('PersonDriving')
        const clicked = await mcp.call('browser_click', { element: 'go', ref: mcp.refOf(snapshot.text, /button "go"/) })
        expect(clicked.isError).toBe(true)
        expect(clicked.text).toContain('A person is using this browser')
        expect(await mcp.call('browser_snapshot').then((r) => r.isError)).toBe(false)

        // The person drives through the asked host's live view: the input lands on the owner's page.
        const conversation = encodeURIComponent(`session:${key}`)
        const input = await post(
          `/live/api/conversations/${conversation}/input`,
          {
            events: [
              { type: 'mouse', action: 'click', x: q.x, y: q.y },
              { type: 'text', text: 'by-person' },
              { type: 'mouse', action: 'click', x: go.x, y: go.y },
            ],
          },
          id,
        )
        expect(input.status, await input.clone().text()).toBe(200)
        expect(await input.json()).toEqual({ applied: 3 })
        expect(
          await eventually(
            async () => (await asked.call(key, 'GET', '/v1/tabs')).body.tabs[0].title === 'clicked:by-person',
            10_000,
          ),
        ).toBe(true)
        expect((await holders()).get(key)).toEqual([owner.index])

        // Handed back through the live view of the asked host: the owner's agent drives again.
        const back = await post(`/live/api/conversations/${conversation}/hand-back`, { note: 'done' }, id)
        expect(back.status, await back.clone().text()).toBe(200)
        expect(await driving()).toBe(false)
        expect((await listed())?.personDriving).toBeUndefined()
        const again = await mcp.call('browser_navigate', { url: shop.url('/page?t=after') })
        expect(again.isError, again.text).toBe(false)
        expect((await holders()).get(key)).toEqual([owner.index])
      } finally {
        await mcp?.end()
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
      }
    },
  )

  it(
    'a key released through one host is listed as parked by no host: those that listed its sealed copy forget it, ' +
      'its owner says closed (K2)',
    async () => {
      const listed = async (h: ClusterHost) =>
        (
          (await h.call(undefined, 'GET', '/v1/person/sessions')).body.sessions as Array<{
            conversationId: string
            state: string
          }>
        ).filter((s) => s.conversationId === `session:${key}`)
      /** What each live host lists for the key: its states there (none: not listed). */
      const states = async () => Promise.all(cluster.live().map(async (h) => (await listed(h)).map((s) => s.state)))
      // A key sealed in the shared store that another host lists as parked: a host that started after it was
      // sealed adopted it at start-up (E5), and one its shard left parked it there. When the cases above left none,
      // one is made so: a fresh key sealed, then a host started.
      let key = ''
      for (const k of keys) {
        key = k
        if ((await cluster.sealed(k)) !== undefined && (await states()).some((s) => s.includes('parked'))) break
        key = ''
      }
      if (key === '') {
        key = 'released'
        const first = cluster.live()[0]!
        expect((await first.call(key, 'POST', '/v1/navigate', { url: bank.url(`/store?v=${key}`) })).status).toBe(200)
        expect(await eventually(async () => (await cluster.sealed(key)) !== undefined, 15_000, 100)).toBe(true)
        await cluster.add()
        expect(await cluster.settled(60_000)).toBe(true)
      }
      const before = await states()
      expect(
        before.some((s) => s.includes('parked')),
        `${key}: ${JSON.stringify(before)}`,
      ).toBe(true)

      expect((await cluster.live()[0]!.call(key, 'DELETE', '/v1/session')).status).toBe(200)
      expect(await cluster.sealed(key)).toBeUndefined()
      // No host lists it as parked (or open) any more: the others forget it as they notice its record is gone, and
      // its owner says closed, as a single host does after a release.
      const settled = await eventually(
        async () => (await states()).every((s) => s.every((state) => state === 'closed')),
        LOCK_EXPIRY_MS * 2,
        200,
      )
      expect(settled, `${key}: ${JSON.stringify(await states())}`).toBe(true)
      expect((await states()).filter((s) => s.length > 0).length).toBeLessThanOrEqual(1)
    },
  )
})

// Issue #25 across hosts (files per errand): the file RPCs run on the owner. Self-contained: its
// own fixture site and keys, released at the end; it needs one live host that is not the owner.
describe('files of an errand through a host that does not own it (#25)', () => {
  it(
    "a file staged and a download made through the asked host land in the owner's folder; the asked host lists and " +
      'fetches them; MCP there lists and reads them too',
    async () => {
      const { createServer } = await import('node:http')
      const { v1Client } = await import('@errands/host')
      const report = Buffer.from(`cluster report ${'r'.repeat(200)}`)
      const site = createServer((req, res) => {
        if ((req.url ?? '').startsWith('/files/report.txt'))
          return void res
            .writeHead(200, {
              'content-type': 'text/plain',
              'content-disposition': 'attachment; filename="report.txt"',
            })
            .end(report)
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
          .end('<!doctype html><title>files</title><a id="dl" href="/files/report.txt">report</a>')
      })
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
      const origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`
      const live = cluster.live()
      expect(live.length).toBeGreaterThanOrEqual(2)
      const asked = live[0]!
      const tried: Array<string> = []
      try {
        const { key, owner } = await openElsewhere(asked, 'fl', (k) => `${origin}/?v=${k}`, tried)
        const agent = v1Client(asked.url, { key, token: asked.token })
        const staged = await agent.stageFile({
          query: { name: 'note.txt' },
          raw: new TextEncoder().encode('a staged note'),
        })
        expect(staged.ok, JSON.stringify(staged.body)).toBe(true)
        expect((await agent.click({ body: { selector: '#dl' } })).ok).toBe(true)
        const listed = async () => {
          const r = await agent.downloads()
          if (!r.ok) throw new Error(`downloads: ${r.status} ${JSON.stringify(r.body)}`)
          return r.body.downloads
        }
        expect(await eventually(async () => (await listed()).length === 1, 15_000, 100)).toBe(true)
        expect((await listed())[0]).toMatchObject({
          name: 'report.txt',
          size: report.byteLength,
          source: `${origin}/files/report.txt`,
        })
        const bytes = await agent.download({ params: { name: 'report.txt' } })
        expect(bytes.ok && Buffer.from(bytes.body).equals(report)).toBe(true)
        // The same list through the owner: one folder, the owner's.
        const ownerList = await v1Client(owner.url, { key, token: owner.token }).downloads()
        expect(ownerList.ok && ownerList.body.downloads.map((f) => f.name)).toEqual(['report.txt'])
        // The staged file is in that folder too (not a download), read back through the asked host.
        const note = await agent.download({ params: { name: 'note.txt' } })
        expect(note.ok && Buffer.from(note.body).toString()).toBe('a staged note')
        // A second download of the same name, through the asked host, is deduplicated in the owner's folder.
        expect((await agent.click({ body: { selector: '#dl' } })).ok).toBe(true)
        expect(await eventually(async () => (await listed()).length === 2, 15_000, 100)).toBe(true)
        // MCP on the asked host (bound to the key): browser_downloads answers from the owner's folder.
        const mcp = await httpClient(asked.url, { key })
        try {
          const r = await mcp.call('browser_downloads')
          expect(r.isError, r.text).toBe(false)
          expect(r.text).toContain('"report.txt"')
          expect(r.text).toContain('"report (1).txt"')
          expect(r.text).not.toContain('note.txt')
          // And as resources, read from the owner's folder byte for byte.
          expect((await mcp.client.listResources()).resources.map((x) => x.name).sort()).toEqual([
            'report (1).txt',
            'report.txt',
          ])
          const read = (await mcp.client.readResource({ uri: 'errands://downloads/report.txt' })).contents[0] as {
            text?: string
          }
          expect(read.text).toBe(report.toString())
        } finally {
          await mcp.end()
        }
        expect((await holders()).get(key)).toEqual([owner.index])
      } finally {
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
        site.closeAllConnections()
        await new Promise((resolve) => site.close(resolve))
      }
    },
  )
})

// Issue #26 (K4) across hosts: the person in the loop. Self-contained: its own keys, released at
// the end; it needs one live host that is not the owner.
describe("the person's passwords through any host (W1)", () => {
  it('a password the person saves through one host is listed by every host and by none in words', async () => {
    while (cluster.live().length < 2) await cluster.add()
    const [one, two] = cluster.live() as [ClusterHost, ClusterHost]
    const saved = await one.call(undefined, 'POST', '/v1/person/passwords', {
      site: 'vault.example',
      username: 'ann',
      password: 'shared-through-the-row',
    })
    expect(saved.status).toBe(200)
    try {
      for (const host of [one, two]) {
        const listed = await host.call(undefined, 'GET', '/v1/person/passwords')
        expect(listed.status).toBe(200)
        expect(JSON.stringify(listed.body)).toContain('vault.example')
        expect(JSON.stringify(listed.body)).not.toContain('shared-through-the-row')
      }
    } finally {
      await one.call(undefined, 'DELETE', `/v1/person/passwords/${(saved.body as { id: string }).id}`)
    }
    expect(JSON.stringify((await two.call(undefined, 'GET', '/v1/person/passwords')).body)).not.toContain('vault')
  })
})

describe('a password fill through a host that does not own the errand (W2, W3, K1)', () => {
  it(
    'a password saved through host A fills the errand host B owns when asked through A: the site gets the value on ' +
      "the wire, the agent's answer and the page's input only the stand-in; a look-alike page is refused with 403 " +
      'and fills nothing',
    async () => {
      while (cluster.live().length < 2) await cluster.add()
      // Characters each encoding must get right: a form's `+` and `&`, a non-ASCII letter.
      const password = `Pw&+ é-${randomBytes(6).toString('hex')}`
      const site = await serveSignInSites({ password, totp: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' })
      const origin = `http://127.0.0.1:${site.port}`
      const asked = cluster.live()[0]!
      const tried: Array<string> = []
      const saved = await asked.call(undefined, 'POST', '/v1/person/passwords', {
        site: origin,
        username: 'ann',
        password,
      })
      expect(saved.status, JSON.stringify(saved.body)).toBe(200)
      const answers: Array<string> = [JSON.stringify(saved.body)]
      try {
        const { key, owner } = await openElsewhere(asked, 'pwf', () => `${origin}/login`, tried)

        // The attack: the errand on another origin (a look-alike of the entry's), the fill asked through A.
        expect((await asked.call(key, 'POST', '/v1/navigate', { url: shop.url(`/store?v=${key}`) })).status).toBe(200)
        const lookalike = await asked.call(key, 'POST', '/v1/fill-password', {
          site: origin,
          username: '#user',
          password: '#pass',
        })
        answers.push(JSON.stringify(lookalike.body))
        expect(lookalike.status, JSON.stringify(lookalike.body)).toBe(403)
        expect(lookalike.body).toMatchObject({ error: { code: 'WrongSite', reason: 'wrong-site' } })

        expect((await asked.call(key, 'POST', '/v1/navigate', { url: `${origin}/login` })).status).toBe(200)
        const filled = await asked.call(key, 'POST', '/v1/fill-password', { username: '#user', password: '#pass' })
        answers.push(JSON.stringify(filled.body))
        expect(filled.status, JSON.stringify(filled.body)).toBe(200)
        expect(filled.body).toMatchObject({ site: origin, user: 'ann', filled: 2 })
        // Filled on the owner's page (one context, B's), read back through A and through B: the stand-in.
        expect((await holders()).get(key)).toEqual([owner.index])
        const passValue = "document.querySelector('input[type=password]').value"
        const read = async (via: ClusterHost) => {
          const r = await via.call(key, 'POST', '/v1/evaluate', { expression: passValue })
          answers.push(JSON.stringify(r.body))
          return r.body.value as string
        }
        const standIn = await read(asked)
        expect(standIn).toMatch(/^Standin[A-Za-z0-9]{22}$/)
        expect(await read(owner)).toBe(standIn)

        // The sign-in leaves the owner's browser with the value swapped in before the wire.
        const from = site.hits.length
        expect((await asked.call(key, 'POST', '/v1/click', { selector: '#go' })).status).toBe(200)
        expect(await eventually(() => site.hits.slice(from).some((h) => h.path === '/session'), 20_000, 100)).toBe(true)
        const posted = site.hits.slice(from).filter((h) => h.path === '/session')
        expect(posted.map((h) => new URLSearchParams(h.body).get('pass'))).toEqual([password])
        expect(posted.map((h) => new URLSearchParams(h.body).get('user'))).toEqual(['ann'])
        expect(
          await eventually(async () =>
            ((await asked.call(key, 'GET', '/v1/text')).body.text as string).includes('welcome'),
          ),
        ).toBe(true)
        for (const text of answers) expect(text).not.toContain(password)
        for (const h of cluster.live()) expect(h.stderr()).not.toContain(password)
      } finally {
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
        await asked.call(undefined, 'DELETE', `/v1/person/passwords/${(saved.body as { id: string }).id}`)
        await site.close()
      }
    },
  )
})

describe('the person in the loop through a host that does not own the errand (#26, K4)', () => {
  it(
    "a help request made through the asked host waits on the owner's errand and is answered by a hand-back on the " +
      "owner's live view with the note; a sign-in question asked there is Allowed there and lends on the wire; the " +
      "asked host's live view lists the owner's waiting and wheel",
    async () => {
      while (cluster.live().length < 2) await cluster.add()
      expect(await cluster.settled(60_000)).toBe(true)
      const asked = cluster.live()[0]!
      const tried: Array<string> = []
      type Listed = {
        conversationId: string
        detail: string
        heldBy?: string
        personDriving?: boolean
        waiting?: Array<string>
        help?: { reason: string }
      }
      try {
        const { key, owner } = await openElsewhere(asked, 'pl', () => shop.url('/form'), tried)
        const conversationId = `session:${key}`
        /** The errand as the owner's GET /v1/person/sessions lists it: its own errand machine. */
        const atOwner = async () =>
          ((await owner.call(undefined, 'GET', '/v1/person/sessions')).body.sessions as Array<Listed>).find(
            (s) => s.conversationId === conversationId,
          )
        /** A live view's sign-in id on `host`. */
        const liveId = async (host: ClusterHost) => {
          const signedIn = await livePost(host)('/live/sign-in', { token: host.token })
          expect(signedIn.status).toBe(200)
          return ((await signedIn.json()) as { id: string }).id
        }
        const askedId = await liveId(asked)
        /** The errand as the asked host's live view lists it. */
        const atAsked = async () => {
          const state = await fetch(`${asked.url}/live/api/state`, {
            headers: { origin: asked.url, 'x-errands-live': askedId },
          })
          return ((await state.json()) as { conversations: Array<Listed> }).conversations.find(
            (c) => c.conversationId === conversationId,
          )
        }

        // An agent asks for help through the asked host: the owner's errand machine waits for the person.
        const help = asked.call(key, 'POST', '/v1/session/help', { reason: 'a captcha', timeoutMs: 50_000 })
        expect(
          await eventually(async () => (await atOwner())?.detail.includes('asking=waiting') === true, 15_000, 100),
        ).toBe(true)
        expect(await atOwner()).toMatchObject({ waiting: ['help'], help: { reason: 'a captcha' } })
        // The asked host's live view lists the owner's idea of it: waiting for help, with the reason.
        expect(await atAsked()).toMatchObject({
          heldBy: owner.runner,
          waiting: ['help'],
          help: { reason: 'a captcha' },
        })
        // The wheel taken through the asked host: its list shows it driven, still waiting.
        expect((await asked.call(undefined, 'POST', '/v1/person/wheel', { session: key })).status).toBe(200)
        expect(await atAsked()).toMatchObject({ heldBy: owner.runner, personDriving: true, waiting: ['help'] })
        // Handed back on the owner's live view, with a note: the agent waiting on the asked host reads it.
        const back = await livePost(owner)(
          `/live/api/conversations/${encodeURIComponent(conversationId)}/hand-back`,
          { note: 'solved it' },
          await liveId(owner),
        )
        expect(back.status, await back.clone().text()).toBe(200)
        const answered = await help
        expect(answered.status, JSON.stringify(answered.body)).toBe(200)
        expect(answered.body).toEqual({ handedBack: true, note: 'solved it' })
        const after = await atAsked()
        expect(after?.personDriving).toBeUndefined()
        expect(after?.waiting).toBeUndefined()

        // A sign-in question through the asked host: its card is there, the owner's errand waits.
        expect(
          (await asked.call(undefined, 'POST', '/v1/person/main/navigate', { url: shop.url('/store?v=main-question') }))
            .status,
        ).toBe(200)
        const question = asked.call(key, 'POST', '/v1/session/permission', { site: '127.0.0.1', timeoutMs: 50_000 })
        const pending = async () =>
          (
            (await asked.call(undefined, 'GET', '/v1/person/questions')).body.questions as Array<{
              id: string
              conversationId: string
            }>
          ).find((q) => q.conversationId === conversationId)
        expect(await eventually(async () => (await pending()) !== undefined, 15_000, 100)).toBe(true)
        expect((await atOwner())?.waiting).toEqual(['sign-in'])
        expect((await atAsked())?.waiting).toEqual(['sign-in'])
        // Allow, pressed where the card is: the asked host's sign-in lent into the owner's errand.
        const allowed = await asked.call(undefined, 'POST', `/v1/person/questions/${(await pending())!.id}`, {
          answer: 'allow',
        })
        expect(allowed.status, JSON.stringify(allowed.body)).toBe(200)
        const lent = await question
        expect(lent.status, JSON.stringify(lent.body)).toBe(200)
        expect(lent.body).toMatchObject({ site: '127.0.0.1', lent: true, why: 'allowed' })
        expect(await eventually(async () => (await atOwner())?.waiting === undefined, 10_000, 100)).toBe(true)
        expect((await atOwner())?.detail).not.toContain('asking=waiting')
        expectWire((await show(asked, shop, key)).wire, 'basket=main-question')

        // An agent that stops waiting for help on the asked host withdraws its request on the owner.
        const gone = new AbortController()
        const abandoned = fetch(`${asked.url}/v1/session/help`, {
          method: 'POST',
          signal: gone.signal,
          headers: { 'content-type': 'application/json', 'x-browser-session': key },
          body: JSON.stringify({ reason: 'going away', timeoutMs: 50_000 }),
        }).catch((e: Error) => e.name)
        expect(await eventually(async () => (await atOwner())?.help?.reason === 'going away', 15_000, 100)).toBe(true)
        gone.abort()
        expect(await abandoned).toBe('AbortError')
        expect(await eventually(async () => (await atOwner())?.waiting === undefined, 15_000, 100)).toBe(true)
        expect((await holders()).get(key)).toEqual([owner.index])
      } finally {
        for (const key of tried) await asked.call(key, 'DELETE', '/v1/session')
      }
    },
  )
})
