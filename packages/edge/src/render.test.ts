import { Schema } from 'effect'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { BadRequest, ForeignOrigin, MethodNotAllowed, Unauthorized, UpgradeRefused } from './errors.ts'
import { errorResponse, rawErrorResponse, refuseUpgrade, toFailure } from './render.ts'

describe('the error renderer', () => {
  it('renders {error:{code,reason,message}} with the status the error carries', async () => {
    const res = errorResponse(new ForeignOrigin({ reason: 'origin', message: 'no' }))
    expect(res.status).toBe(403)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(await res.json()).toEqual({ error: { code: 'ForeignOrigin', reason: 'origin', message: 'no' } })
  })

  it('adds Allow, WWW-Authenticate and Retry-After where they belong', () => {
    expect(toFailure(new MethodNotAllowed({ reason: 'method', allow: 'GET', message: '' })).headers).toEqual({
      allow: 'GET',
    })
    expect(toFailure(new Unauthorized({ reason: 'wrong-token', message: '' })).headers['www-authenticate']).toMatch(
      /^Bearer/,
    )
    expect(toFailure({ _tag: 'Busy', message: '', status: 503 }).headers).toEqual({ 'retry-after': '5' })
    expect(toFailure({ _tag: 'Slow', message: '', status: 429, retryAfterSeconds: 30 }).headers).toEqual({
      'retry-after': '30',
    })
  })

  it('hides a defect, and lets a front give the status of an error that carries none', () => {
    expect(toFailure(new Error('secret detail'))).toMatchObject({ status: 500, code: 'InternalError' })
    expect(toFailure(new Error('secret detail')).message).not.toContain('secret')
    expect(toFailure({ _tag: 'RuntimeError', message: 'x' }, { statusOf: () => 504 }).status).toBe(504)
  })

  it('keeps the status in the schema: it survives encoding', () => {
    const encoded = Schema.encodeSync(BadRequest)(new BadRequest({ reason: 'invalid-json', message: 'm' }))
    expect(encoded).toMatchObject({ _tag: 'BadRequest', status: 400 })
  })

  it('answers a refused upgrade in HTTP on the raw socket, then closes it', async () => {
    const socket = new PassThrough()
    let written = ''
    socket.on('data', (d: Buffer) => (written += d.toString()))
    const ended = new Promise((r) => socket.on('end', r))
    refuseUpgrade(socket, new UpgradeRefused({ reason: 'no-websocket', message: 'none here' }))
    await ended
    expect(written).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    expect(written).toContain('Connection: close')
    expect(JSON.parse(written.slice(written.indexOf('\r\n\r\n') + 4))).toEqual({
      error: { code: 'UpgradeRefused', reason: 'no-websocket', message: 'none here' },
    })
    expect(rawErrorResponse(new ForeignOrigin({ reason: 'origin', message: '' }))).toMatch(/^HTTP\/1\.1 403 Forbidden/)
  })
})
