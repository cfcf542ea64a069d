import { describe, expect, it } from 'vitest'
import { admit } from './access.ts'

const h = (o: Record<string, string>) => new Headers(o)
const me = { port: 7777 }

describe('admit: the one order of the first checks, over a declared access (B7, docs/edge.md)', () => {
  it('the Host first: a rebinding page with a foreign Origin too is refused for its Host', () => {
    const both = h({ host: 'evil.example:7777', origin: 'https://evil.example' })
    expect(admit(both, me)).toMatchObject({ _tag: 'WrongHost', status: 421 })
    expect(admit(h({ host: '127.0.0.1:7777', origin: 'https://evil.example' }), me)).toMatchObject({
      _tag: 'ForeignOrigin',
      status: 403,
    })
    expect(admit(h({ host: 'localhost:7777' }), me)).toBeUndefined()
  })

  it('the declared origin rule is the one applied: a required Origin, another named origin, none of our own', () => {
    expect(admit(h({ host: '127.0.0.1:7777' }), me, { origin: { required: true } })).toMatchObject({
      reason: 'no-origin',
    })
    const extension = { origin: { own: false, others: (o: string) => o === 'chrome-extension://abc' } }
    expect(admit(h({ host: '127.0.0.1:7777', origin: 'chrome-extension://abc' }), me, extension)).toBeUndefined()
    expect(admit(h({ host: '127.0.0.1:7777', origin: 'http://127.0.0.1:7777' }), me, extension)).toMatchObject({
      _tag: 'ForeignOrigin',
    })
  })

  it('an exact Host list (a DevTools URL as handed out) takes only those names, read at each request', () => {
    let names = ['127.0.0.1:7777']
    const access = { host: { exactly: () => names }, origin: { own: false } }
    expect(admit(h({ host: '127.0.0.1:7777' }), me, access)).toBeUndefined()
    expect(admit(h({ host: 'localhost:7777' }), me, access)).toMatchObject({
      _tag: 'WrongHost',
      message: expect.stringContaining('exactly as it was given'),
    })
    names = ['localhost:7777']
    expect(admit(h({ host: 'localhost:7777' }), me, access)).toBeUndefined()
    expect(admit(h({}), me, access)).toMatchObject({ _tag: 'WrongHost', message: expect.stringContaining('nothing') })
  })
})
