import { createServer, connect, type Server, type Socket } from 'node:net'
import { request } from 'node:http'
import { defaultPolicy } from '@errands/guard'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Egress, type Lane } from './Egress.ts'
import { parseResolverRules } from './resolve.ts'

/** A TCP listener that counts the bytes and connections that reach it. */
const listener = async (answer?: string) => {
  const seen = { connections: 0, bytes: 0 }
  const server: Server = createServer((s) => {
    seen.connections++
    s.on('data', (d) => {
      seen.bytes += d.length
      if (answer !== undefined) s.end(answer)
    })
  })
  await new Promise<void>((r) => server.listen(0, '::', () => r()))
  return { seen, port: (server.address() as { port: number }).port, close: () => new Promise((r) => server.close(r)) }
}

/** Sends a CONNECT through a lane; resolves with the status line's code. */
const connectThrough = (lane: Lane, target: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const s: Socket = connect(lane.port, '127.0.0.1', () =>
      s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`),
    )
    s.once('data', (d) => {
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(d.toString('latin1'))?.[1] ?? 0))
      s.destroy()
    })
    s.on('error', reject)
  })

/** A plain proxied GET through a lane; resolves with the status. */
const getThrough = (lane: Lane, url: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: lane.port, path: url, headers: { host: new URL(url).host } },
      (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      },
    )
    req.on('error', reject)
    req.end()
  })

let engine: Awaited<ReturnType<typeof listener>>
let devServer: Awaited<ReturnType<typeof listener>>
let egress: Egress
let lane: Lane
const logs: Array<string> = []
const dialled: Array<string> = []

beforeAll(async () => {
  engine = await listener('HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nengine')
  devServer = await listener('HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\ndev')
  egress = await Egress.start({
    policy: defaultPolicy([{ host: '127.0.0.1', port: engine.port }]),
    log: (line) => logs.push(line),
    resolverRules: parseResolverRules(
      'MAP intranet.test 10.0.0.1, MAP loop.test 127.0.0.1, MAP nowhere.test ~NOTFOUND, MAP own.test 192.0.2.200',
    ),
    // The machine's own addresses as the test says (machine.test.ts reads the real interfaces).
    machineAddresses: () => ['192.0.2.200'],
  })
  egress.observe((d) => {
    if (d.allow) dialled.push(d.target)
  })
  lane = await egress.openLane('e1')
})
afterAll(async () => {
  await egress.close()
  await engine.close()
  await devServer.close()
})

describe('the egress refuses the engine port on every spelling, before any connect (G3)', () => {
  it.each([
    '127.0.0.1',
    '127.1',
    '0x7f000001',
    '2130706433',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '0.0.0.0',
    '[::]',
    '[::1]',
    'localhost',
    'localhost.',
    'loop.test',
    'vm',
  ])('CONNECT and GET to %s on the engine port: 403, 0 bytes reach it', async (host) => {
    expect(await connectThrough(lane, `${host}:${engine.port}`)).toBe(403)
    expect(await getThrough(lane, `http://${host}:${engine.port}/secret?token=abc`)).toBe(403)
    expect(engine.seen).toEqual({ connections: 0, bytes: 0 })
  })

  it('refuses a name mapped to a private address by the decision alone: nothing is dialled', async () => {
    const before = dialled.length
    expect(await connectThrough(lane, 'intranet.test:443')).toBe(403)
    expect(await getThrough(lane, 'http://intranet.test/admin')).toBe(403)
    expect(dialled.length).toBe(before)
    expect(egress.stats().byRule.private).toBeGreaterThanOrEqual(2)
  })

  it("refuses an upstream proxy on an engine port: the page's bytes never reach it (G2, issue #21)", async () => {
    const chained = await egress.openLane('e-up')
    chained.setUpstream(`http://user:pw@127.0.0.1:${engine.port}`)
    expect(await getThrough(chained, `http://127.0.0.1:${devServer.port}/`)).toBe(403)
    expect(engine.seen.bytes).toBe(0)
    await chained.close()
  })

  it('resolves an upstream proxy named by a name: a loopback name on an engine port is refused (G2)', async () => {
    const chained = await egress.openLane('e-up-name')
    chained.setUpstream(`http://user:pw@loop.test:${engine.port}`)
    expect(await getThrough(chained, `http://127.0.0.1:${devServer.port}/`)).toBe(403)
    expect(engine.seen.bytes).toBe(0)
    // A name that resolves to nothing is refused, and says so.
    chained.setUpstream('http://nowhere.test:8080')
    expect(await getThrough(chained, `http://127.0.0.1:${devServer.port}/`)).toBe(403)
    expect(logs.some((l) => l.includes('upstream http://nowhere.test:8080') && l.includes('rule=invalid-url'))).toBe(
      true,
    )
    await chained.close()
  })

  it("refuses the machine's own addresses, for pages and upstream proxies, by address and by name (G2)", async () => {
    expect(await getThrough(lane, 'http://192.0.2.200:8080/')).toBe(403)
    expect(await connectThrough(lane, '[::ffff:192.0.2.200]:443')).toBe(403)
    expect(await connectThrough(lane, 'own.test:443')).toBe(403)
    const chained = await egress.openLane('e-up-own')
    for (const upstream of ['http://192.0.2.200:8080', 'http://own.test:8080']) {
      chained.setUpstream(upstream)
      expect(await getThrough(chained, `http://127.0.0.1:${devServer.port}/`), upstream).toBe(403)
    }
    expect(egress.stats().byRule['own-address']).toBeGreaterThanOrEqual(5)
    await chained.close()
  })

  it('refuses its own lanes as engine ports', async () => {
    expect(await connectThrough(lane, `127.0.0.1:${lane.port}`)).toBe(403)
  })

  it('lets a local dev server through (the positive), CONNECT and plain', async () => {
    expect(await getThrough(lane, `http://127.0.0.1:${devServer.port}/page`)).toBe(200)
    expect(await connectThrough(lane, `localhost:${devServer.port}`)).toBe(200)
    expect(devServer.seen.connections).toBeGreaterThanOrEqual(1)
  })

  it('logs each decision once with errand, rule and scheme://host:port — never a path or query (L7)', () => {
    expect(logs.some((l) => /^egress: refused http:\/\/vm:\d+ for e1 rule=own-port/.test(l))).toBe(true)
    expect(logs.some((l) => /^egress: refused connect:\/\/intranet\.test:443 for e1 rule=private/.test(l))).toBe(true)
    expect(logs.filter((l) => /secret|token|admin|\/page/.test(l))).toEqual([])
    expect(egress.stats().lastRefusal).toMatchObject({ errand: 'e1', allow: false })
  })
})
