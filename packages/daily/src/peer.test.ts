import { describe, expect, it } from 'vitest'
import { allowedExtensionOrigin, isLoopbackAddress } from './peer.ts'

describe('who is calling (D2, B7)', () => {
  it.each(['127.0.0.1', '127.255.255.254', '::1', '::ffff:127.0.0.1', '::FFFF:127.1.2.3', '0:0:0:0:0:0:0:1'])(
    '%s is loopback',
    (a) => {
      expect(isLoopbackAddress(a)).toBe(true)
    },
  )

  it.each([
    undefined,
    '',
    '10.0.0.1',
    '192.0.2.2',
    '128.0.0.1',
    '::',
    '::2',
    'fd00::2',
    '::ffff:10.0.0.1',
    '127.0.0',
    '127.0.0.1.5',
    '127.0.0.256',
    'localhost',
  ])('%s is not loopback', (a) => expect(isLoopbackAddress(a)).toBe(false))

  it('accepts only chrome-extension:// Origins of allowed ids', () => {
    const id = 'dmlklmnegbjkhpodgecphlidpippljbl'
    expect(allowedExtensionOrigin(`chrome-extension://${id}`, [id])).toBe(id)
    expect(allowedExtensionOrigin(`chrome-extension://${'a'.repeat(32)}`, [id])).toBeUndefined()
    expect(allowedExtensionOrigin(`chrome-extension://${id}/`, [id])).toBeUndefined()
    expect(allowedExtensionOrigin(`moz-extension://${id}`, [id])).toBeUndefined()
    expect(allowedExtensionOrigin('null', [id])).toBeUndefined()
    expect(allowedExtensionOrigin(undefined, [id])).toBeUndefined()
  })
})
