import { describe, expect, it } from '@effect/vitest'
import { randomBytes } from 'node:crypto'
import { Either } from 'effect'
import { deviceKey, FIXED_HEADER_BYTES, FORMAT_VERSION, MAGIC, parseHeader, seal, unseal } from './format.ts'

const key = deviceKey(randomBytes(32))
const plaintext = new TextEncoder().encode('{"hello":"world"}')

describe('sealed format', () => {
  it('round-trips and lays the header out as documented', () => {
    const file = seal(key, 'e1', 1_700_000_000_123, plaintext)
    expect([...file.subarray(0, 4)]).toEqual([...MAGIC])
    expect(Buffer.from(file.subarray(0, 4)).toString('latin1')).toBe('ERSS')
    expect(file[4]).toBe(FORMAT_VERSION)
    const view = new DataView(file.buffer, file.byteOffset)
    expect(view.getBigUint64(13)).toBe(1_700_000_000_123n)
    expect(view.getUint32(21)).toBe(plaintext.length)
    expect(view.getUint16(25)).toBe(2)
    expect(file.length).toBe(FIXED_HEADER_BYTES + 2 + 12 + plaintext.length + 16)
    const opened = Either.getOrThrow(unseal(key, 'e1', file))
    expect(new TextDecoder().decode(opened.plaintext)).toBe('{"hello":"world"}')
    expect(opened.header).toMatchObject({ errandId: 'e1', parkedAt: 1_700_000_000_123, version: 1 })
  })

  it('draws a fresh nonce for every write', () => {
    const nonces = new Set<string>()
    for (let i = 0; i < 200; i++) {
      const file = seal(key, 'e1', 0, plaintext)
      nonces.add(Buffer.from(file.subarray(FIXED_HEADER_BYTES + 2, FIXED_HEADER_BYTES + 14)).toString('hex'))
    }
    expect(nonces.size).toBe(200)
  })

  it('binds the errand id: a file opened as another errand is tampered', () => {
    expect(unseal(key, 'e2', seal(key, 'e1', 0, plaintext))).toEqual(Either.left('tampered'))
  })

  it('tells a foreign key from tampering by the key id', () => {
    const other = deviceKey(randomBytes(32))
    expect(unseal(other, 'e1', seal(key, 'e1', 0, plaintext))).toEqual(Either.left('foreign-key'))
    expect(Buffer.from(other.id).equals(Buffer.from(key.id))).toBe(false)
    expect(Buffer.from(deviceKey(Buffer.from(new Uint8Array(32))).id).toString('hex')).toHaveLength(16)
  })

  it('authenticates the header: a file whose key id was forged still fails as tampered', () => {
    // An attacker without the key can copy the key id but not the tag over a changed header.
    const file = Buffer.from(seal(key, 'e1', 5, plaintext))
    file.writeBigUInt64BE(6n, 13)
    expect(unseal(key, 'e1', file)).toEqual(Either.left('tampered'))
  })

  it('parses headers in file order', () => {
    const file = seal(key, 'abc', 42, plaintext)
    expect(parseHeader(new Uint8Array(0), 0)).toEqual(Either.left('truncated'))
    expect(parseHeader(file.subarray(0, 3), 3)).toEqual(Either.left('truncated'))
    expect(parseHeader(Uint8Array.from([1, 2, 3]), 3)).toEqual(Either.left('malformed'))
    const v9 = Uint8Array.from(file)
    v9[4] = 9
    expect(parseHeader(v9, v9.length)).toEqual(Either.left('unknown-version'))
    const prefix = file.subarray(0, 40)
    expect(Either.map(parseHeader(prefix, file.length), (h) => [h.errandId, h.parkedAt])).toEqual(
      Either.right(['abc', 42]),
    )
    expect(parseHeader(prefix, file.length - 1)).toEqual(Either.left('truncated'))
    expect(parseHeader(prefix, file.length + 1)).toEqual(Either.left('malformed'))
  })

  it('refuses to seal an id that does not fit the header', () => {
    expect(() => seal(key, '', 0, plaintext)).toThrow(RangeError)
    expect(() => seal(key, 'é'.repeat(301), 0, plaintext)).toThrow(RangeError)
  })
})
