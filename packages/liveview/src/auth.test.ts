import { Redacted } from 'effect'
import { describe, expect, it } from 'vitest'
import { cookieValue, LIVE_COOKIE, LiveAuth } from './auth.ts'

describe('the live view sign-in', () => {
  it('exchanges the right token for a random id the cookie carries, and nothing else', () => {
    const auth = new LiveAuth(Redacted.make('s3cret-token'))
    expect(auth.signIn('wrong')).toBeUndefined()
    expect(auth.signIn('s3cret-token ')).toBeUndefined()
    const id = auth.signIn('s3cret-token')!
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(id).not.toContain('s3cret')
    expect(auth.isSignedIn(`other=1; ${LIVE_COOKIE}=${id}`)).toBe(true)
    expect(auth.isSignedIn(`${LIVE_COOKIE}=${id}x`)).toBe(false)
    expect(auth.isSignedIn(`${LIVE_COOKIE}=s3cret-token`)).toBe(false)
    expect(auth.isSignedIn(undefined)).toBe(false)
    expect(auth.signIn('s3cret-token')).not.toBe(id)
  })

  it('signs out one sign-in, and keeps at most 64', () => {
    const auth = new LiveAuth(Redacted.make('t'))
    const ids = Array.from({ length: 65 }, () => auth.signIn('t')!)
    expect(auth.isSignedIn(`${LIVE_COOKIE}=${ids[0]}`)).toBe(false)
    expect(auth.isSignedIn(`${LIVE_COOKIE}=${ids[64]}`)).toBe(true)
    auth.signOut(`${LIVE_COOKIE}=${ids[64]}`)
    expect(auth.isSignedIn(`${LIVE_COOKIE}=${ids[64]}`)).toBe(false)
    expect(auth.isSignedIn(`${LIVE_COOKIE}=${ids[63]}`)).toBe(true)
  })

  it('writes an HttpOnly, SameSite=Strict cookie, and clears it', () => {
    expect(LiveAuth.cookie('abc')).toBe(`${LIVE_COOKIE}=abc; HttpOnly; SameSite=Strict; Path=/`)
    expect(LiveAuth.cookie(undefined)).toContain('Max-Age=0')
    expect(cookieValue('a=1;  b = 2 ; c', 'b')).toBe('2')
    expect(cookieValue('a=1', 'b')).toBeUndefined()
  })
})
