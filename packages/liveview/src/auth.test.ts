import { Redacted } from 'effect'
import { describe, expect, it } from 'vitest'
import { LiveAuth, liveIdOf, socketIdOf } from './auth.ts'
import { LIVE_HEADER, LIVE_PROTOCOL } from './protocol.ts'

describe('the live view sign-in (X4)', () => {
  it('exchanges the right token for a random id, and nothing else', () => {
    const auth = new LiveAuth(Redacted.make('s3cret-token'))
    expect(auth.signIn('wrong')).toBeUndefined()
    expect(auth.signIn('s3cret-token ')).toBeUndefined()
    const id = auth.signIn('s3cret-token')!
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(id).not.toContain('s3cret')
    expect(auth.isSignedIn(id)).toBe(true)
    expect(auth.isSignedIn(`${id}x`)).toBe(false)
    expect(auth.isSignedIn('s3cret-token')).toBe(false)
    expect(auth.isSignedIn(undefined)).toBe(false)
    expect(auth.isSignedIn('')).toBe(false)
    expect(auth.signIn('s3cret-token')).not.toBe(id)
  })

  it('signs out one sign-in, and keeps at most 64', () => {
    const auth = new LiveAuth(Redacted.make('t'))
    const ids = Array.from({ length: 65 }, () => auth.signIn('t')!)
    expect(auth.isSignedIn(ids[0])).toBe(false)
    expect(auth.isSignedIn(ids[64])).toBe(true)
    auth.signOut(ids[64])
    expect(auth.isSignedIn(ids[64])).toBe(false)
    expect(auth.isSignedIn(ids[63])).toBe(true)
  })

  it('reads the id from the header and from the socket subprotocols only — never from a cookie', () => {
    expect(liveIdOf({ [LIVE_HEADER]: 'abc' })).toBe('abc')
    expect(liveIdOf({ cookie: 'errands_live=abc' })).toBeUndefined()
    expect(socketIdOf({ 'sec-websocket-protocol': `${LIVE_PROTOCOL}, abc` })).toBe('abc')
    expect(socketIdOf({ 'sec-websocket-protocol': 'abc' })).toBeUndefined()
    expect(socketIdOf({ 'sec-websocket-protocol': `other, abc` })).toBeUndefined()
    expect(socketIdOf({ cookie: 'errands_live=abc' })).toBeUndefined()
  })
})
