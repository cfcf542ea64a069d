import { describe, expect, it } from '@effect/vitest'
import { randomBytes } from 'node:crypto'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Context, Effect, Exit, Layer, Option, Redacted } from 'effect'
import { ERRANDS_DIR, fileNameFor } from './disk.ts'
import { expectedAt, expectOnlyVictim } from './damage.ts'
import { sampleRecord, tempDir } from './fixtures.ts'
import { deviceKey, seal } from './format.ts'
import { SealedStore } from './SealedStore.ts'

/*
 * S4: a tampered, truncated or foreign sealed file is a clear error for its errand only; the
 * other errands keep reading fine. The files are damaged on the real disk under an open store.
 */

const key = randomBytes(32)

const setup = Effect.gen(function* () {
  const dir = join(yield* tempDir, 'store')
  const store = yield* Layer.build(SealedStore.layer({ dir, key: Redacted.make(key) })).pipe(
    Effect.map(Context.get(SealedStore)),
    Effect.orDie,
  )
  for (const id of ['before', 'after']) yield* store.put(sampleRecord(id, 1_000, id))
  // A small victim keeps the every-byte loops quick; its ciphertext is no different in kind.
  yield* store.put({
    ...sampleRecord('victim', 1_000),
    snapshot: { storage: { cookies: [], origins: [] }, tabs: [], takenAt: 1_000 },
  })
  const path = (id: string) => join(dir, ERRANDS_DIR, fileNameFor(id))
  return { dir, store, path, original: readFileSync(path('victim')) }
})

const victimFile = fileNameFor('victim')

describe('damaged sealed files', () => {
  it.scoped(
    "flipping any byte (all bits, then one bit) fails that errand only, with the field's reason",
    () =>
      Effect.gen(function* () {
        const { store, path, original } = yield* setup
        const idBytes = Buffer.byteLength('victim')
        for (const mask of [0xff, 0x01]) {
          for (let i = 0; i < original.length; i++) {
            const damaged = Buffer.from(original)
            damaged[i] = (damaged[i] ?? 0) ^ mask
            writeFileSync(path('victim'), damaged)
            yield* expectOnlyVictim(store, expectedAt(i, idBytes), `byte ${i} ^ ${mask}`, victimFile)
          }
        }
        writeFileSync(path('victim'), original)
        expect(Option.isSome(yield* store.get('victim'))).toBe(true)
      }),
    60_000,
  )

  it.scoped(
    'a file cut at any length is truncated',
    () =>
      Effect.gen(function* () {
        const { store, path, original } = yield* setup
        for (let length = 0; length < original.length; length++) {
          writeFileSync(path('victim'), original.subarray(0, length))
          yield* expectOnlyVictim(store, ['truncated'], `cut at ${length}`, victimFile)
        }
      }),
    60_000,
  )

  it.scoped('trailing bytes are malformed', () =>
    Effect.gen(function* () {
      const { store, path, original } = yield* setup
      writeFileSync(path('victim'), Buffer.concat([original, Buffer.from([0])]))
      yield* expectOnlyVictim(store, ['malformed'], 'one byte appended', victimFile)
    }),
  )

  it.scoped('a newer format version is unknown-version, reported by problems() with its errand', () =>
    Effect.gen(function* () {
      const { store, path, original } = yield* setup
      const bumped = Buffer.from(original)
      bumped[4] = 2
      writeFileSync(path('victim'), bumped)
      yield* expectOnlyVictim(store, ['unknown-version'], 'version 2', victimFile)
      expect(yield* store.problems()).toEqual([
        { file: fileNameFor('victim'), errandId: 'victim', reason: 'unknown-version' },
      ])
    }),
  )

  it.scoped('a file sealed under another device key is foreign-key', () =>
    Effect.gen(function* () {
      const { store, path } = yield* setup
      writeFileSync(path('victim'), seal(deviceKey(randomBytes(32)), 'victim', 1_000, Buffer.from('{}')))
      yield* expectOnlyVictim(store, ['foreign-key'], 'foreign key', victimFile)
    }),
  )

  it.scoped("another errand's file moved over this one is tampered, and problems() says so", () =>
    Effect.gen(function* () {
      const { store, path } = yield* setup
      copyFileSync(path('before'), path('victim'))
      yield* expectOnlyVictim(store, ['tampered'], 'moved file', victimFile)
      expect(yield* store.problems()).toEqual([
        { file: fileNameFor('victim'), errandId: undefined, reason: 'tampered' },
      ])
    }),
  )

  it.scoped('a payload that decrypts but is not a parked record is malformed', () =>
    Effect.gen(function* () {
      const { store, path } = yield* setup
      for (const payload of ['{"nope":1}', 'not json', '\xff\xfe']) {
        writeFileSync(path('victim'), seal(deviceKey(key), 'victim', 1_000, Buffer.from(payload, 'latin1')))
        yield* expectOnlyVictim(store, ['malformed'], payload, victimFile)
      }
    }),
  )

  it.scoped('a sealed record whose header disagrees with its payload is tampered', () =>
    Effect.gen(function* () {
      const { store, path } = yield* setup
      const json = Buffer.from(JSON.stringify(sampleRecord('victim', 1_000)))
      writeFileSync(path('victim'), seal(deviceKey(key), 'victim', 999, json))
      yield* expectOnlyVictim(store, ['tampered'], 'parkedAt differs', victimFile)
    }),
  )

  it.scoped('problems() lists unreadable headers and discard() removes only still-unreadable files', () =>
    Effect.gen(function* () {
      const { store, path, original } = yield* setup
      const broken = Buffer.from(original)
      broken[0] = 0
      writeFileSync(path('victim'), broken)
      expect(yield* store.problems()).toEqual([
        { file: fileNameFor('victim'), errandId: undefined, reason: 'malformed' },
      ])
      // Fixed in the meantime (a fresh put): discard keeps the good file.
      writeFileSync(path('victim'), original)
      yield* store.discard(fileNameFor('victim'))
      expect(Option.isSome(yield* store.get('victim'))).toBe(true)
      writeFileSync(path('victim'), broken)
      yield* store.discard(fileNameFor('victim'))
      yield* store.discard(fileNameFor('victim')) // idempotent
      expect(yield* store.problems()).toEqual([])
      expect(yield* store.get('victim')).toEqual(Option.none())
      expect((yield* store.list()).map((e) => e.errandId)).toEqual(['after', 'before'])
      const traversal = yield* Effect.exit(store.discard('../device.key'))
      expect(Exit.isFailure(traversal)).toBe(true)
    }),
  )

  it.scoped('a damaged record can be removed and written afresh', () =>
    Effect.gen(function* () {
      const { store, path } = yield* setup
      writeFileSync(path('victim'), Buffer.from('garbage'))
      const recovered = yield* store
        .get('victim')
        .pipe(Effect.catchTag('RecordUnreadable', (e) => store.remove(e.errandId).pipe(Effect.as(Option.none()))))
      expect(recovered).toEqual(Option.none())
      yield* store.put(sampleRecord('victim', 2_000, 'again'))
      expect(Option.map(yield* store.get('victim'), (r) => r.parkedAt)).toEqual(Option.some(2_000))
    }),
  )
})
