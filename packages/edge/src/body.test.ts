import { Effect, Either } from 'effect'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { parseJson, readNodeBody, readWebBody, utf8 } from './body.ts'
import { PayloadTooLarge } from './errors.ts'

const stream = (...chunks: Array<string>) => {
  let pulled = 0
  return {
    pulled: () => pulled,
    body: new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (pulled === chunks.length) return c.close()
          c.enqueue(new TextEncoder().encode(chunks[pulled++]!))
        },
      },
      { highWaterMark: 0 },
    ),
  }
}

describe('readWebBody', () => {
  it('reads up to the limit', async () => {
    expect(utf8(await Effect.runPromise(readWebBody(stream('{"a"', ':1}').body, 10)))).toBe('{"a":1}')
  })

  it('stops reading past the limit and answers 413', async () => {
    const s = stream('aaaa', 'bbbb', 'cccc', 'dddd')
    const out = await Effect.runPromise(Effect.either(readWebBody(s.body, 6)))
    expect(Either.getLeft(out).pipe((e) => e._tag === 'Some' && e.value)).toMatchObject({
      _tag: 'PayloadTooLarge',
      status: 413,
    })
    expect(s.pulled()).toBeLessThan(4)
  })

  it('refuses a declared length over the limit before reading', async () => {
    const s = stream('a')
    await expect(Effect.runPromise(readWebBody(s.body, 6, '7'))).rejects.toThrow(/larger than 6 bytes/)
    expect(s.pulled()).toBe(0)
  })

  it('passes on a PayloadTooLarge the stream fails with', async () => {
    const body = new ReadableStream<Uint8Array>({ start: (c) => c.error(PayloadTooLarge.of(3)) })
    const out = await Effect.runPromise(Effect.flip(readWebBody(body, 10)))
    expect(out).toMatchObject({ _tag: 'PayloadTooLarge', message: expect.stringContaining('3 bytes') })
  })
})

describe('readNodeBody', () => {
  it('reads a body, and answers 413 past the limit on a connection that still carries the answer', async () => {
    const server = http.createServer((req, res) => {
      void Effect.runPromise(Effect.either(readNodeBody(req, 8))).then((out) => {
        res.end(Either.isRight(out) ? utf8(out.right) : out.left._tag)
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
    try {
      expect(await (await fetch(url, { method: 'POST', body: '{"a":1}' })).text()).toBe('{"a":1}')
      expect(await (await fetch(url, { method: 'POST', body: 'x'.repeat(100_000) })).text()).toBe('PayloadTooLarge')
      const chunked = new ReadableStream({
        start: (c) => {
          c.enqueue(new TextEncoder().encode('x'.repeat(50)))
          c.close()
        },
      })
      expect(await (await fetch(url, { method: 'POST', body: chunked, duplex: 'half' } as RequestInit)).text()).toBe(
        'PayloadTooLarge',
      )
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})

describe('parseJson', () => {
  it('parses JSON, takes a blank body as {}, refuses anything else with 400', async () => {
    expect(await Effect.runPromise(parseJson(' '))).toEqual({})
    expect(await Effect.runPromise(Effect.flip(parseJson('{')))).toMatchObject({
      _tag: 'BadRequest',
      reason: 'invalid-json',
      status: 400,
    })
  })
})
