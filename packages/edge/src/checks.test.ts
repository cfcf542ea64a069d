import { describe, expect, it } from 'vitest'
import { checkHost, checkMediaType, checkMethod, checkOrigin, isOwnHost, nodeHeaders } from './checks.ts'

const me = { port: 7777 }
const h = (init: Record<string, string>) => new Headers(init)

describe('checkHost (B7: DNS rebinding)', () => {
  it('answers 127.0.0.1:<port> and localhost:<port> only', () => {
    for (const host of ['127.0.0.1:7777', 'localhost:7777', 'LocalHost:7777'])
      expect(checkHost(h({ host }), me)).toBeUndefined()
    for (const host of [
      'evil.example:7777',
      '127.0.0.1',
      '127.0.0.1:7778',
      '127.0.0.2:7777',
      '[::1]:7777',
      '127.0.0.1:7777.evil.example',
      'localhost',
    ]) {
      expect(checkHost(h({ host }), me)).toMatchObject({ _tag: 'WrongHost', status: 421, reason: 'foreign-host' })
    }
    expect(checkHost(h({}), me)?.status).toBe(421)
  })

  it('reads Node headers too', () => {
    expect(isOwnHost(nodeHeaders({ host: '127.0.0.1:7777' }).get('host'), me)).toBe(true)
    expect(nodeHeaders({ 'x-a': ['1', '2'] }).get('X-A')).toBe('1, 2')
  })
})

describe('checkOrigin (B7: CSRF)', () => {
  it('takes no Origin, or the request’s own', () => {
    expect(checkOrigin(h({ host: '127.0.0.1:7777' }), me)).toBeUndefined()
    expect(checkOrigin(h({ host: '127.0.0.1:7777', origin: 'http://127.0.0.1:7777' }), me)).toBeUndefined()
    expect(checkOrigin(h({ host: 'localhost:7777', origin: 'http://localhost:7777' }), me)).toBeUndefined()
  })

  it('refuses another origin — another port, the other loopback name, null, an extension', () => {
    for (const origin of [
      'https://evil.example',
      'null',
      'http://127.0.0.1:3000',
      'http://localhost:7777',
      'chrome-extension://abc',
    ]) {
      expect(checkOrigin(h({ host: '127.0.0.1:7777', origin }), me)).toMatchObject({
        _tag: 'ForeignOrigin',
        status: 403,
        reason: 'origin',
      })
    }
  })

  it('refuses a cross-site Sec-Fetch-Site without an Origin, unless the front frames itself', () => {
    for (const site of ['cross-site', 'same-site']) {
      expect(checkOrigin(h({ 'sec-fetch-site': site }), me)).toMatchObject({ reason: 'fetch-site' })
      expect(checkOrigin(h({ 'sec-fetch-site': site }), me, { fetchSite: false })).toBeUndefined()
    }
    expect(checkOrigin(h({ 'sec-fetch-site': 'none' }), me)).toBeUndefined()
  })

  it('follows a front’s rule: no own origin, others named, an Origin required', () => {
    const ext = 'chrome-extension://abc'
    const rule = { own: false, others: (o: string) => o === ext, required: true }
    expect(checkOrigin(h({ host: '127.0.0.1:7777', origin: ext }), me, rule)).toBeUndefined()
    expect(checkOrigin(h({ host: '127.0.0.1:7777', origin: 'http://127.0.0.1:7777' }), me, rule)?.reason).toBe('origin')
    expect(checkOrigin(h({ host: '127.0.0.1:7777' }), me, rule)?.reason).toBe('no-origin')
  })
})

describe('checkMediaType and checkMethod', () => {
  it('takes JSON bodies only', () => {
    expect(checkMediaType(h({ 'content-type': 'application/json; charset=utf-8' }), true)).toBeUndefined()
    expect(checkMediaType(h({}), false)).toBeUndefined()
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expect(checkMediaType(h({ 'content-type': type }), true)).toMatchObject({
        _tag: 'UnsupportedMediaType',
        status: 415,
      })
    }
    expect(checkMediaType(h({}), true)?.status).toBe(415)
  })

  it('answers a wrong method with 405 and the methods allowed', () => {
    expect(checkMethod('HEAD', ['GET'], '/x')).toBeUndefined()
    expect(checkMethod('DELETE', ['POST', 'GET'], '/x')).toMatchObject({
      _tag: 'MethodNotAllowed',
      status: 405,
      allow: 'GET, POST',
    })
  })
})
