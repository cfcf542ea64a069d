import { Effect, Either, Schema } from 'effect'
import { describe, expect, it } from 'vitest'
import { decide } from './decide.ts'
import { DEFAULT_ALLOWED_SCHEMES, decodePolicy, defaultPolicy, GuardPolicy } from './policy.ts'

describe('GuardPolicy schema', () => {
  it('fills in every default but ownPorts', () => {
    const p = Schema.decodeUnknownSync(GuardPolicy)({ ownPorts: [{ port: 7070 }] })
    expect(p).toEqual(defaultPolicy([{ port: 7070 }]))
    expect(p.allowedSchemes).toEqual(DEFAULT_ALLOWED_SCHEMES)
  })
  it('lower-cases schemes and accepts about: pages', () => {
    const p = Schema.decodeUnknownSync(GuardPolicy)({ ownPorts: [], allowedSchemes: ['HTTPS', 'about:blank'] })
    expect(p.allowedSchemes).toEqual(['https', 'about:blank'])
    expect(decide('http://example.com/', p).rule).toBe('scheme')
  })
  it.each([
    [{ ownPorts: [{ port: 0 }] }, 'port'],
    [{ ownPorts: [{ port: 70000 }] }, 'port'],
    [{ ownPorts: [], allowPrivate: ['10.0.0.0/40'] }, 'allowPrivate'],
    [{ ownPorts: [], allowPrivate: ['lan'] }, 'allowPrivate'],
    [{ ownPorts: [], blockedHosts: ['https://x.example/'] }, 'blockedHosts'],
    [{ ownPorts: [], allowedSchemes: ['http:'] }, 'allowedSchemes'],
    [{}, 'ownPorts'],
  ])('rejects %j naming %s', (input, field) => {
    const result = Schema.decodeUnknownEither(GuardPolicy)(input)
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) expect(result.left.message).toContain(field)
  })
  it('decodes through Effect', async () => {
    const p = await Effect.runPromise(
      decodePolicy({ ownPorts: [{ host: '127.0.0.1', port: 9 }], allowPrivate: ['10.1.0.0/16'] }),
    )
    expect(decide('http://10.1.2.3/', p).rule).toBe('private-allowed')
  })
})
