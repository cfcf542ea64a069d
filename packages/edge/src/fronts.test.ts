import type * as http from 'node:http'
import type { Duplex } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { dispatch, type Front, frontTable } from './fronts.ts'

// The host's one table of fronts (docs/edge.md): a path has one owner, found by the path alone.

const front = (name: string, paths: ReadonlyArray<string>, extra: Partial<Front> = {}): Front => ({
  name,
  paths,
  ...extra,
})

const table = frontTable([
  front('live view', ['/', '/ui/', '/live/']),
  front('mcp', ['/mcp']),
  front('daily', ['/daily', '/daily/']),
  front('devtools', ['/devtools/']),
])

describe('frontTable', () => {
  it('finds the one front that owns a path: exact paths exactly, prefixes what is under them, the query aside', () => {
    const owner = (url: string) => table.owner(url)?.name
    expect(owner('/')).toBe('live view')
    expect(owner('/?x=1')).toBe('live view')
    expect(owner('/live/api/state')).toBe('live view')
    expect(owner('/mcp')).toBe('mcp')
    expect(owner('/mcp?session=1')).toBe('mcp')
    expect(owner('/mcp#x')).toBe('mcp')
    expect(owner('/daily')).toBe('daily')
    expect(owner('/daily/redeem')).toBe('daily')
    expect(owner('/devtools/abc')).toBe('devtools')
    // Look-alikes are nobody's: the /v1 app answers them (its 404).
    for (const url of ['/mcpx', '/mcp/', '/dailyx', '/devtools', '/live', '/v1/url', '/health', '', '//mcp'])
      expect(owner(url), url).toBeUndefined()
  })

  it('refuses a table where two fronts own one path, whatever their order', () => {
    expect(() => frontTable([front('a', ['/x/']), front('b', ['/x/y'])])).toThrow(/a and b both own \/x\/y/)
    expect(() => frontTable([front('b', ['/x/y']), front('a', ['/x/'])])).toThrow(/both own/)
    expect(() => frontTable([front('a', ['/mcp']), front('b', ['/mcp'])])).toThrow(/both own/)
    expect(() => frontTable([front('a', ['/']), front('b', ['/x'])])).not.toThrow()
  })
})

describe('dispatch', () => {
  const seen: Array<string> = []
  const req = (url: string) => ({ url }) as http.IncomingMessage
  const res = { headersSent: false } as unknown as http.ServerResponse
  const socket = {} as Duplex
  const listeners = (t: ReturnType<typeof frontTable> | undefined) =>
    dispatch(() => t, {
      request: (r) => seen.push(`otherwise request ${r.url}`),
      upgrade: (r) => seen.push(`otherwise upgrade ${r.url}`),
      failed: (f, e, left) => seen.push(`${f.name} failed (${left._tag}): ${(e as Error).message}`),
    })

  it("sends a request or an upgrade to its path's front when it takes that kind, else to otherwise", async () => {
    seen.length = 0
    const t = frontTable([
      front('mcp', ['/mcp'], { request: (r) => seen.push(`mcp ${r.url}`) }),
      front('devtools', ['/devtools/'], { upgrade: (r) => seen.push(`devtools ${r.url}`) }),
      front('broken', ['/broken'], {
        request: () => Promise.reject(new Error('no')),
        upgrade: () => {
          throw new Error('thrown')
        },
      }),
    ])
    const { request, upgrade } = listeners(t)
    request(req('/mcp'), res)
    request(req('/devtools/x'), res)
    upgrade(req('/devtools/x'), socket, Buffer.alloc(0))
    upgrade(req('/mcp'), socket, Buffer.alloc(0))
    request(req('/v1/url'), res)
    upgrade(req('/broken'), socket, Buffer.alloc(0))
    request(req('/broken'), res)
    await new Promise((r) => setImmediate(r))
    expect(seen).toEqual([
      'mcp /mcp',
      'otherwise request /devtools/x',
      'devtools /devtools/x',
      'otherwise upgrade /mcp',
      'otherwise request /v1/url',
      'broken failed (upgrade): thrown',
      'broken failed (request): no',
    ])
  })

  it('before the table exists, everything is otherwise', () => {
    seen.length = 0
    const { request, upgrade } = listeners(undefined)
    request(req('/mcp'), res)
    upgrade(req('/devtools/x'), socket, Buffer.alloc(0))
    expect(seen).toEqual(['otherwise request /mcp', 'otherwise upgrade /devtools/x'])
  })
})
