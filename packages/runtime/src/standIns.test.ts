import { describe, expect, it } from 'vitest'
import { findStandIns, findValues, mintStandIn, STAND_IN_PREFIX, swapRequest, type LiveStandIn } from './standIns.ts'

const token = mintStandIn('token')!
const code = '402913'
const pw: LiveStandIn = { token, shape: 'token', reveal: () => 'p@ss w"rd&=é' }
const totp: LiveStandIn = { token: code, shape: 'digits', reveal: () => '123456' }
const bytes = (s: string) => new TextEncoder().encode(s)
const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b)

describe('stand-ins (W3)', () => {
  it('are fresh tokens of letters and digits, or digits for a code field', () => {
    expect(token).toMatch(new RegExp(`^${STAND_IN_PREFIX}[A-Za-z0-9]{22}$`))
    expect(mintStandIn('token')).not.toBe(token)
    expect(mintStandIn('digits', 8)).toMatch(/^\d{8}$/)
  })

  it("fit a field's maxlength, dropping the prefix first, and never go under 12 random characters", () => {
    expect(mintStandIn('token', 6, 20)).toMatch(/^Standin[A-Za-z0-9]{13}$/)
    expect(mintStandIn('token', 6, 15)).toMatch(/^[A-Za-z0-9]{15}$/)
    expect(mintStandIn('token', 6, 11)).toBeUndefined()
  })

  it('a form body gets the value percent-encoded, a JSON body as a JSON string', () => {
    const form = swapRequest(
      {
        url: 'https://shop.example/login',
        contentType: 'application/x-www-form-urlencoded',
        body: bytes(`u=a&p=${token}`),
      },
      [pw],
    )
    expect(text(form.body)).toBe('u=a&p=p%40ss+w%22rd%26%3D%C3%A9')
    expect(new URLSearchParams(text(form.body)).get('p')).toBe('p@ss w"rd&=é')
    const json = swapRequest(
      { url: 'https://shop.example/api', contentType: 'application/json', body: bytes(JSON.stringify({ p: token })) },
      [pw],
    )
    expect(JSON.parse(text(json.body))).toEqual({ p: 'p@ss w"rd&=é' })
    const plainJson = swapRequest(
      { url: 'https://shop.example/api', contentType: 'text/plain;charset=UTF-8', body: bytes(`{"p":"${token}"}`) },
      [pw],
    )
    expect(JSON.parse(text(plainJson.body))).toEqual({ p: 'p@ss w"rd&=é' })
  })

  it("a URL's query gets the value percent-encoded; its path is never rewritten", () => {
    const r = swapRequest({ url: `https://shop.example/${token}/login?pw=${token}#${token}` }, [pw])
    expect(r.url).toBe(`https://shop.example/${token}/login?pw=${encodeURIComponent('p@ss w"rd&=é')}#${token}`)
    expect(new URL(r.url!).searchParams.get('pw')).toBe('p@ss w"rd&=é')
  })

  it('a body of an unknown type keeps its stand-in and says so', () => {
    const r = swapRequest(
      { url: 'https://shop.example/x', contentType: 'application/octet-stream', body: bytes(token) },
      [pw],
    )
    expect(r.body).toBeUndefined()
    expect(r.unwritable).toEqual([pw])
    expect(r.swapped).toEqual([])
  })

  it('a code stand-in is swapped only as a whole number, and computed once per request', () => {
    let calls = 0
    const counted: LiveStandIn = { ...totp, reveal: () => String(++calls).padStart(6, '0') }
    const r = swapRequest(
      {
        url: 'https://shop.example/otp',
        contentType: 'application/json',
        body: bytes(`{"a":"${code}","b":"9${code}","c":"${code}"}`),
      },
      [counted],
    )
    expect(text(r.body)).toBe(`{"a":"000001","b":"9${code}","c":"000001"}`)
    expect(calls).toBe(1)
  })

  it('findStandIns sees a stand-in in the URL, a header or the body', () => {
    expect(findStandIns({ url: `https://evil.test/${token}` }, [pw, totp])).toEqual([pw])
    expect(findStandIns({ url: 'https://evil.test/', headers: [`x-a: ${token}`] }, [pw])).toEqual([pw])
    expect(findStandIns({ url: 'https://evil.test/', body: bytes(`c=${code}`) }, [pw, totp])).toEqual([totp])
    expect(findStandIns({ url: 'https://evil.test/', body: bytes(`c=1${code}`) }, [totp])).toEqual([])
  })
})

describe('findValues (W3): the value itself, however a URL or a body spells it', () => {
  const value = 'Pw&"+ é-9f2a'
  const live = [{ token: 'StandinAAAAAAAAAAAAAAAAAAAAAA', shape: 'token' as const, reveal: () => value }]
  it('finds it raw, percent-encoded, as a browser normalises a Location, form-encoded and in JSON', () => {
    for (const url of [
      `https://evil.test/?pw=${value}`,
      `https://evil.test/?pw=${encodeURIComponent(value)}`,
      'https://evil.test/?pw=Pw&%22+%20%C3%A9-9f2a',
      'https://evil.test/?pw=Pw&%22+%20%E9-9f2a',
    ])
      expect(findValues({ url }, live), url).toHaveLength(1)
    const form = new TextEncoder().encode(new URLSearchParams({ pw: value }).toString())
    expect(findValues({ url: 'https://evil.test/', body: form }, live)).toHaveLength(1)
    const json = new TextEncoder().encode(JSON.stringify({ pw: value }))
    expect(findValues({ url: 'https://evil.test/', body: json }, live)).toHaveLength(1)
  })
  it('finds nothing in a request without it, nor for a one-time code', () => {
    expect(findValues({ url: 'https://evil.test/?pw=Pw-9f2a' }, live)).toHaveLength(0)
    const code = [{ token: '123456', shape: 'digits' as const, reveal: () => '654321' }]
    expect(findValues({ url: 'https://evil.test/?c=654321' }, code)).toHaveLength(0)
  })
})
