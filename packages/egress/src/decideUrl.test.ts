import { defaultPolicy } from '@errands/guard'
import { describe, expect, it } from 'vitest'
import { decideUrl } from './decideUrl.ts'
import { makeResolver, parseResolverRules } from './resolve.ts'

const policy = defaultPolicy([{ host: '127.0.0.1', port: 7070 }])
const system = (table: Record<string, ReadonlyArray<string>>) => (host: string) => Promise.resolve(table[host] ?? [])
const resolve = makeResolver(
  parseResolverRules('MAP engine.test 127.0.0.1'),
  system({ vm: ['127.0.0.1'], shop: ['203.0.113.7'], rebind: ['203.0.113.7', '10.0.0.1'] }),
)

describe('decideUrl: a URL judged by what its name resolves to (G2, G3)', () => {
  it('refuses a name that resolves to an engine port like the address itself', async () => {
    expect((await decideUrl('http://vm:7070/', policy, resolve)).rule).toBe('own-port')
    expect((await decideUrl('http://engine.test:7070/x?y', policy, resolve)).rule).toBe('own-port')
    expect((await decideUrl('http://127.0.0.1:7070/', policy, resolve)).rule).toBe('own-port')
  })
  it('refuses when any address is private (rebinding gets no second chance)', async () => {
    expect((await decideUrl('https://rebind/', policy, resolve)).rule).toBe('private')
  })
  it(
    'allows public names and other loopback ports; keeps the text decision for what reaches no network or resolves ' +
      'to nothing',
    async () => {
      expect(await decideUrl('https://shop/', policy, resolve)).toMatchObject({ allow: true, rule: 'public' })
      expect(await decideUrl('http://vm:3000/', policy, resolve)).toMatchObject({ allow: true, rule: 'loopback' })
      expect(await decideUrl('http://nowhere.example/', policy, resolve)).toMatchObject({ allow: true, rule: 'public' })
      expect(await decideUrl('about:blank', policy, resolve)).toMatchObject({ allow: true, rule: 'local-scheme' })
      expect((await decideUrl('file:///etc/passwd', policy, resolve)).rule).toBe('scheme')
    },
  )
})
