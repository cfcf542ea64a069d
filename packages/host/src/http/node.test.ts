import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { onClientError } from './node.ts'

// Requests Node's parser refuses never reach a handler; they still get the JSON error (B1).
const answer = (code: string, rawPacket?: string) => {
  const socket = new PassThrough()
  let out = ''
  socket.on('data', (d: Buffer) => (out += d.toString()))
  const error = Object.assign(new Error('Parse Error'), {
    code,
    rawPacket: rawPacket === undefined ? undefined : Buffer.from(rawPacket, 'latin1'),
  })
  onClientError(error, socket)
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1]),
    body: JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)) as { error: { code: string } },
  }
}

describe('clientError', () => {
  it('answers a control character in the session key with InvalidSessionKey', () => {
    expect(answer('HPE_INVALID_HEADER_TOKEN', 'GET /v1/url HTTP/1.1\r\nX-Browser-Session: a\u0001b\r\n\r\n')).toEqual({
      status: 400,
      body: { error: expect.objectContaining({ code: 'InvalidSessionKey' }) },
    })
  })

  it('answers other malformed requests with a JSON 400, and oversized headers with 431', () => {
    expect(answer('HPE_INVALID_HEADER_TOKEN', 'GET / HTTP/1.1\r\nOther: a\u0001b\r\n\r\n').body.error.code).toBe(
      'BadRequest',
    )
    expect(answer('HPE_INVALID_METHOD').status).toBe(400)
    expect(answer('HPE_HEADER_OVERFLOW').status).toBe(431)
  })
})
