/**
 * The DevTools endpoint's cost (A1): the same Playwright task — open a page, go to a fixture
 * page, read its title, set a cookie, close the page — through an errand's DevTools endpoint (the
 * proxy: one more hop per message, its checks, and the engine's own work on every page of an
 * errand: guard, scripts) and with `connectOverCDP` straight to a plain Chromium of the same
 * binary and flags (the engine's own Chromiums have no DevTools port since ADR 0016) in a fresh
 * context of its own. A second comparison isolates the hop: CDP round trips on one tab, through
 * the proxy and straight. A third (#27): errand B's `GET /v1/url` alone and while a client floods
 * errand A's endpoint with 20,000 messages from another process — a flood on one errand must not
 * starve another.
 * Connections are made once; the sides run interleaved in one process.
 *
 * @example
 * rows.push(...(await benchDevtools(15)))
 */
import { spawn } from 'node:child_process'
import { chromium, type Browser, type Page } from 'playwright-core'
import { closeSites, serveSites } from '../test/fixtures/sites.ts'
import { startTestHost, type TestHost } from '../test/host/harness.ts'
import { interleave, launchRaw } from './common.ts'
import { median, type Row } from './table.ts'

const SECTION = 'devtools: open, goto, title, set cookie, close page (Playwright connectOverCDP)'
const HOP = 'devtools: one CDP round trip on one tab (page.evaluate, median of 50 in a row)'
const FLOOD = "devtools: errand B's GET /v1/url, alone and during a 20,000-message flood on errand A's endpoint"
const FLOOD_MESSAGES = 20_000

const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}

/** The DevTools URL of `key`'s errand (typed: the answer is decoded with its declared Schema). */
const devtoolsUrl = async (host: TestHost, key: string): Promise<string> => {
  const reply = await host.v1(key).devtools()
  if (!reply.ok) throw new Error(`/v1/session/devtools → ${reply.status} ${reply.body?.error.code}`)
  return reply.body.url
}

/** B's /v1/url latencies while `busy` runs (at least `minimum` samples). */
const latencies = async (host: TestHost, busy: Promise<unknown>, minimum: number): Promise<Array<number>> => {
  let done = false
  void busy.finally(() => (done = true))
  const times: Array<number> = []
  const b = host.v1('bench-b')
  while (!done || times.length < minimum) {
    const start = performance.now()
    const reply = await b.url()
    if (!reply.ok) throw new Error(`/v1/url → ${reply.status} ${reply.body?.error.code}`)
    times.push(performance.now() - start)
  }
  return times
}

/**
 * Sends FLOOD_MESSAGES commands on A's endpoint as fast as the socket takes them, from **another
 * process** (a flooding client is not in the host's process: run here, its own 20,000 sends and
 * parses would block the host's event loop and be counted against the host); resolves when every
 * one was answered or the connection ended.
 */
interface Flood {
  /** The flooding process is connected and sending. */
  readonly started: Promise<void>
  readonly done: Promise<{ answered: number; refused: number; closed: string | undefined }>
}
const flood = (url: string): Flood => {
  let started!: () => void
  const start = new Promise<void>((r) => (started = r))
  const done = new Promise<{ answered: number; refused: number; closed: string | undefined }>((resolve, reject) => {
    const script = `
      const WebSocket = require('ws')
      const [url, count] = [process.argv[1], Number(process.argv[2])]
      const ws = new WebSocket(url, { perMessageDeflate: false })
      let answered = 0, refused = 0, closed
      const end = () => { process.stdout.write(JSON.stringify({ answered, refused, closed })); process.exit(0) }
      ws.on('open', () => {
        process.stdout.write('sending\\n')
        for (let id = 1; id <= count; id++) ws.send(JSON.stringify({ id, method: 'Browser.getVersion', params: {} }))
      })
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString())
        if (m.id === undefined) return
        if (m.error !== undefined) refused++
        else answered++
        if (answered + refused === count) end()
      })
      ws.on('close', (_code, reason) => { closed = reason.toString(); end() })
      ws.on('error', () => undefined)
    `
    const child = spawn(process.execPath, ['-e', script, url, String(FLOOD_MESSAGES)], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      if (out.includes('sending\n')) started()
    })
    child.on('exit', () => {
      started()
      const last = out.split('\n').at(-1) ?? ''
      return last ? resolve(JSON.parse(last)) : reject(new Error('the flooding process reported nothing'))
    })
  })
  return { started: start, done }
}

/**
 * Measures both sides `rounds` times.
 *
 * @example
 * const rows = await benchDevtools(15)
 */
export const benchDevtools = async (rounds: number): Promise<Row[]> => {
  const [site] = await serveSites(1)
  const host = await startTestHost()
  const raw = await launchRaw()
  const browsers: Array<Browser> = []
  try {
    const url = await devtoolsUrl(host, 'bench')
    const proxied = await chromium.connectOverCDP(url)
    const direct = raw.browser
    browsers.push(proxied)
    const onPage = async (page: Page) => {
      await page.goto(site!.url('/title?t=bench'))
      if ((await page.title()) !== 'bench') throw new Error('wrong page')
    }
    const viaProxy = async () => {
      const context = proxied.contexts()[0]!
      const page = await context.newPage()
      await onPage(page)
      await context.addCookies([{ name: 'bench', value: String(Math.random()), url: site!.origin }])
      await page.close()
    }
    const own = await direct.newContext({ viewport: null })
    // Like the errand (a context with no viewport emulation, as connectOverCDP's default one),
    // which keeps its first (blank) tab open between rounds.
    const ownTab = await own.newPage()
    const straight = async () => {
      const page = await own.newPage()
      await onPage(page)
      await own.addCookies([{ name: 'bench', value: String(Math.random()), url: site!.origin }])
      await page.close()
    }
    const times = await interleave({ direct: straight, proxy: viaProxy }, rounds, 200)
    // The hop alone: one CDP round trip (page.evaluate) on one tab, 50 in a row.
    const tab = proxied.contexts()[0]!.pages()[0]!
    const trips = (page: Page) => async () => {
      for (let i = 0; i < 50; i++) await page.evaluate('1 + 1')
    }
    const hop = await interleave({ direct: trips(ownTab), proxy: trips(tab) }, rounds, 100)
    // The flood: B alone, then B while A's endpoint takes 20,000 messages.
    await host.v1('bench-b').navigate({ body: { url: site!.url('/title?t=b') } })
    const floodUrl = await devtoolsUrl(host, 'bench-a')
    const alone = await latencies(host, Promise.resolve(), 200)
    const flooded = flood(floodUrl)
    await flooded.started
    const during = await latencies(host, flooded.done, 20)
    const outcome = await flooded.done
    const base = median(times.direct!)
    const hopBase = median(hop.direct!) / 50
    const p50 = percentile(alone, 50)
    return [
      { section: SECTION, name: 'connectOverCDP straight to a plain Chromium', median: base, ratio: 1 },
      {
        section: SECTION,
        name: "through the errand's DevTools endpoint",
        median: median(times.proxy!),
        ratio: median(times.proxy!) / base,
      },
      { section: HOP, name: 'straight to a plain Chromium', median: hopBase, ratio: 1 },
      {
        section: HOP,
        name: "through the errand's DevTools endpoint",
        median: median(hop.proxy!) / 50,
        ratio: median(hop.proxy!) / 50 / hopBase,
      },
      { section: FLOOD, name: `B alone: p50 (${alone.length} calls)`, median: p50, ratio: 1 },
      { section: FLOOD, name: 'B alone: p95', median: percentile(alone, 95), ratio: percentile(alone, 95) / p50 },
      {
        section: FLOOD,
        name: `B during A's flood: p50 (${during.length} calls)`,
        median: percentile(during, 50),
        ratio: percentile(during, 50) / p50,
      },
      {
        section: FLOOD,
        name: "B during A's flood: p95",
        median: percentile(during, 95),
        ratio: percentile(during, 95) / p50,
      },
      {
        section: FLOOD,
        name:
          `A's flood: ${outcome.answered} answered, ${outcome.refused} ` +
          `refused${outcome.closed ? `, closed: ${outcome.closed.slice(0, 40)}` : ''}`,
        median: NaN,
        ratio: NaN,
      },
    ]
  } finally {
    await Promise.all(browsers.map((b) => b.close()))
    await raw.close()
    await host.stop()
    await closeSites([site!])
  }
}
