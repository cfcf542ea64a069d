/**
 * The Daily Browser door attacked from the same machine (issue 23, X3, D1), on a real host's
 * port: an MCP client that names the bot id is not offered `browser_observe` and cannot read the
 * person's tab — only the session holding the lease secret the person was given can; and 25
 * wrong codes from one source (another loopback address, the extension's Origin forged) leave
 * the person's real code working from the extension's own source, and so does a guess spread over
 * many sources, which the global limit holds back at those sources only; and 5 wrong codes from another
 * process on the person's own address with the extension's Origin lock out that process, not the person.
 */
import { dailyExtensionId } from '@errands/daily'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import * as http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHost, until, type TestHost } from '../host/harness.ts'
import { httpClient } from '../mcp/clients.ts'

let host: TestHost
const extension = `chrome-extension://${dailyExtensionId}`

beforeAll(async () => {
  host = await startTestHost({ ERRANDS_MAX_SESSIONS: '3' }, undefined, 0, { mcpLingerMs: 60_000 })
})
afterAll(async () => {
  await host?.stop()
})

/** A door call from `from` (a loopback address of this machine). */
const door = (
  path: string,
  body: unknown,
  headers: Record<string, string>,
  from = '127.0.0.1',
): Promise<{ status: number; body: any }> =>
  new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: host.port,
        localAddress: from,
        method: 'POST',
        path: `/daily${path}`,
        agent: false,
        headers: { host: `127.0.0.1:${host.port}`, 'content-type': 'application/json', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        )
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
const admin = () => ({ authorization: `Bearer ${host.tokenText}` })

describe('a Daily Browser lease belongs to the approved agent session (X3)', () => {
  it(
    'a client naming the bot id, or with a wrong secret, is not offered browser_observe and reads nothing; the ' +
      'holder reads the tab',
    async () => {
      const botId = 'persona-bot'
      const pairing = await door('/admin/pairings', { botId }, admin())
      expect(pairing.status).toBe(200)
      const { code, botSecret } = pairing.body as { code: string; botSecret: string }
      expect(botSecret).toMatch(/^[A-Za-z0-9_-]{43}$/)
      const redeemed = await door('/redeem', { code }, { origin: extension })
      const lease = { origin: extension, authorization: `Bearer ${redeemed.body.token}` }
      expect(
        (
          await door(
            '/lease/share',
            { tabId: 1, url: 'https://mail.example/inbox', documentId: 'DOC', title: 'Inbox' },
            lease,
          )
        ).status,
      ).toBe(200)

      const named = await httpClient(host.url, { key: botId })
      const guessing = await httpClient(host.url, {
        key: botId,
        headers: { 'x-daily-lease': randomBytes(32).toString('base64url') },
      })
      const holder = await httpClient(host.url, { key: botId, headers: { 'x-daily-lease': botSecret } })
      try {
        const names = async (c: typeof named) => (await c.client.listTools()).tools.map((t) => t.name)
        expect(await until(async () => (await names(holder)).includes('browser_observe'))).toBe(true)
        expect(await names(named)).not.toContain('browser_observe')
        expect(await names(guessing)).not.toContain('browser_observe')
        // Calling it anyway gets nothing: no observation is even asked of the extension.
        for (const c of [named, guessing]) expect((await c.call('browser_observe')).isError).toBe(true)
        expect((await door('/lease/poll', { waitMs: 0, inFlight: [] }, lease)).body.requests).toEqual([])

        const reading = holder.call('browser_observe')
        let id: string | undefined
        expect(
          await until(
            async () =>
              (id = (await door('/lease/poll', { waitMs: 0, inFlight: [] }, lease)).body.requests?.[0]?.id) !==
              undefined,
          ),
        ).toBe(true)
        await door(
          '/lease/answer',
          {
            id,
            url: 'https://mail.example/inbox',
            documentId: 'DOC',
            title: 'Inbox',
            text: 'Your inbox: 3 unread',
            controls: [],
          },
          lease,
        )
        const seen = await reading
        expect(seen.isError).toBe(false)
        expect(seen.text).toContain('Your inbox: 3 unread')

        // A newer pairing for the same bot is another lease: the old secret holds nothing any more.
        await door('/admin/pairings', { botId }, admin())
        expect(await until(async () => !(await names(holder)).includes('browser_observe'))).toBe(true)
      } finally {
        for (const c of [named, guessing, holder]) await c.end().catch(() => undefined)
      }
    },
  )
})

describe('the door limits failed codes per source (D1)', () => {
  it("25 wrong codes from one source leave the person's real code working from the extension's source", async () => {
    const { code } = (await door('/admin/pairings', { botId: 'rate-bot' }, admin())).body as { code: string }
    // The guesser: another loopback address, the extension's Origin forged.
    const answers: Array<number> = []
    for (let i = 0; i < 25; i++)
      answers.push(
        (await door('/redeem', { code: `AAAA-AAAA-${String(i).padStart(4, '0')}` }, { origin: extension }, '127.0.0.2'))
          .status,
      )
    expect(answers.slice(0, 5)).toEqual([403, 403, 403, 403, 403])
    expect(answers.slice(5)).toEqual(Array(20).fill(429))
    // And a process on the person's own address that cannot forge the extension's Origin counts for nothing.
    for (let i = 0; i < 25; i++)
      expect(
        (
          await door(
            '/redeem',
            { code: 'BBBB-BBBB-BBBB' },
            { origin: 'chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
          )
        ).status,
      ).toBe(403)
    const person = await door('/redeem', { code }, { origin: extension })
    expect(person.status).toBe(200)
    expect(person.body.botId).toBe('rate-bot')
    // The person getting in lifted nothing for the guesser: its source is still held.
    expect((await door('/redeem', { code: 'AAAA-AAAA-9999' }, { origin: extension }, '127.0.0.2')).status).toBe(429)
  })

  it(
    "5 wrong codes from another process on 127.0.0.1 with the extension's Origin leave the person's code " +
      'working (D1)',
    async () => {
      const { code } = (await door('/admin/pairings', { botId: 'local-bot' }, admin())).body as { code: string }
      // Another local process, the person's own address and the extension's public Origin: only the
      // process differs from the person's extension.
      const script =
        `const http = require('http'); const out = [];` +
        `const one = (i) => new Promise((r) => { const q = http.request({ host: '127.0.0.1', port: ${host.port},` +
        `method: 'POST', path: '/daily/redeem', agent: false, headers: { host: '127.0.0.1:${host.port}',` +
        `'content-type': 'application/json', origin: '${extension}' } }, (res) => { res.resume();` +
        `res.on('end', () => r(res.statusCode)) }); q.on('error', () => r(0));` +
        `q.end(JSON.stringify({ code: 'DDDD-DDDD-000' + i })) });` +
        `(async () => { for (let i = 0; i < 7; i++) out.push(await one(i)); console.log(JSON.stringify(out)) })()`
      const guesser = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
      let printed = ''
      guesser.stdout.on('data', (d: Buffer) => (printed += d.toString('utf8')))
      await new Promise((r) => guesser.once('exit', r))
      expect(JSON.parse(printed)).toEqual([403, 403, 403, 403, 403, 429, 429])
      const person = await door('/redeem', { code }, { origin: extension })
      expect(person.status, JSON.stringify(person.body)).toBe(200)
      expect(person.body.botId).toBe('local-bot')
    },
  )

  it(
    "a guess spread over many sources is held back by the global limit, but only at those sources: the person's " +
      'code still works',
    async () => {
      const { code } = (await door('/admin/pairings', { botId: 'spread-bot' }, admin())).body as { code: string }
      // Six more loopback addresses, four wrong codes each: every one stays under its own limit of
      // five, and together they pass the door's global limit of twenty failures a minute.
      const sources = ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7', '127.0.0.8']
      const answers = new Map<string, Array<number>>()
      for (const from of sources) {
        for (let i = 0; i < 4; i++) {
          const status = (
            await door('/redeem', { code: `CCCC-CCCC-${String(i).padStart(4, '0')}` }, { origin: extension }, from)
          ).status
          answers.set(from, [...(answers.get(from) ?? []), status])
        }
      }
      // A source's first guess is judged (it had failed nothing); the later ones are refused by
      // the global limit once it is reached, with fewer than five failures of their own.
      for (const from of sources) expect(answers.get(from)![0], from).toBe(403)
      expect([...answers.values()].flat().every((s) => s === 403 || s === 429)).toBe(true)
      expect([...answers.values()].some((a) => a.includes(429))).toBe(true)
      // Every guessing source is held now, even with the real code: the guess cannot go on.
      for (const from of sources)
        expect((await door('/redeem', { code }, { origin: extension }, from)).status, from).toBe(429)
      // The person's extension, which failed nothing, is not: its real code works.
      const person = await door('/redeem', { code }, { origin: extension })
      expect(person.status).toBe(200)
      expect(person.body.botId).toBe('spread-bot')
    },
  )
})
