import { describe, expect, it } from '@effect/vitest'
import { Arbitrary, Either, Schema } from 'effect'
import fc from 'fast-check'
import { sampleRecord, SECRETS } from './fixtures.ts'
import { ErrandId, ParkedRecordSchema, recordFromBytes, recordToBytes } from './record.ts'

describe('ParkedRecord', () => {
  it('round-trips any valid record through its bytes (property)', () => {
    fc.assert(
      fc.property(Arbitrary.make(ParkedRecordSchema), (record) => {
        const bytes = Either.getOrThrow(recordToBytes(record))
        // JSON has no -0: the one value that comes back different (as 0), which the model allows for.
        expect(Either.getOrThrow(recordFromBytes(bytes))).toEqual(JSON.parse(JSON.stringify(record)))
      }),
      { numRuns: 200 },
    )
  })

  it('accepts ids of 1..200 well-formed characters only', () => {
    const is = Schema.is(ErrandId)
    expect(is('a')).toBe(true)
    expect(is('x'.repeat(200))).toBe(true)
    expect(is('😀'.repeat(100))).toBe(true)
    expect(is('')).toBe(false)
    expect(is('x'.repeat(201))).toBe(false)
    expect(is('a\uD800b')).toBe(false)
  })

  it("writes only the schema's fields", () => {
    const record = { ...sampleRecord('e1', 0), extra: 'do-not-store' }
    const json = new TextDecoder().decode(Either.getOrThrow(recordToBytes(record)))
    expect(json).not.toContain('do-not-store')
    expect(json).toContain(SECRETS.cookie)
  })

  it("seals an errand's own IndexedDB and its tabs' sessionStorage, never what a read left out (E7)", () => {
    const base = sampleRecord('e1', 0)
    const indexedDB = [{ origin: 'https://a.example', databases: [{ name: 'mail', version: 3, data: '{"s":1}' }] }]
    const sessionStorage = { origin: 'https://a.example', localStorage: [{ name: 'draft', value: 'x' }] }
    const snapshot = {
      ...base.snapshot,
      tabs: [{ url: 'https://a.example/', active: true, sessionStorage }],
      indexedDB,
      leftOut: [{ origin: 'https://b.example', reason: 'over-cap' as const }],
    }
    const back = Either.getOrThrow(recordFromBytes(Either.getOrThrow(recordToBytes({ ...base, snapshot }))))
    expect(back.snapshot.indexedDB).toEqual(indexedDB)
    expect(back.snapshot.tabs[0]!.sessionStorage).toEqual(sessionStorage)
    expect(back.snapshot.leftOut).toBeUndefined()
  })

  it('reports an invalid record by path, never by value', () => {
    const bad = sampleRecord('e1', -5)
    const cookies = [{ ...bad.snapshot.storage.cookies[0]!, expires: Number.NaN }]
    const problem = recordToBytes({
      ...bad,
      snapshot: { ...bad.snapshot, storage: { ...bad.snapshot.storage, cookies } },
    })
    expect(Either.isLeft(problem)).toBe(true)
    const text = Either.isLeft(problem) ? problem.left : ''
    expect(text).toContain('parkedAt')
    expect(text).toContain('snapshot.storage.cookies.0.expires')
    expect(text).not.toContain(SECRETS.cookie)
  })

  it('says malformed for bytes that are not a record', () => {
    for (const text of ['', 'null', '{}', '{"errandId":"x"}', '\uFFFD']) {
      expect(recordFromBytes(new TextEncoder().encode(text))).toEqual(Either.left('malformed'))
    }
    expect(recordFromBytes(Uint8Array.from([0xff, 0xfe]))).toEqual(Either.left('malformed'))
  })
})
