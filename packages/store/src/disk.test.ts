import { describe, expect, it } from '@effect/vitest'
import { randomBytes } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context, Effect, Layer, Option, Redacted, TestClock } from 'effect'
import { storeContract } from './contract.ts'
import { ERRANDS_DIR, fileNameFor } from './disk.ts'
import { allFiles, diskLayer, sampleRecord, SECRETS, tempDir } from './fixtures.ts'
import { KEY_FILE } from './key.ts'
import { BACKUP_EXCLUDE, CACHEDIR_TAG, CACHEDIR_TAG_SIGNATURE } from './markers.ts'
import { DAY_MS } from './retention.ts'
import { SealedStore } from './SealedStore.ts'

storeContract('disk', (retention) => diskLayer(retention))

/** Opens a store whose scope is the test's, so its retention fiber lives as long as the test. */
const open = (dir: string, key?: Uint8Array, extra: { pruneIntervalMs?: number } = {}) =>
  Layer.build(SealedStore.layer({ dir, ...(key === undefined ? {} : { key: Redacted.make(key) }), ...extra })).pipe(
    Effect.map(Context.get(SealedStore)),
    Effect.orDie,
  )

const mode = (path: string) => statSync(path).mode & 0o777

describe('disk store', () => {
  it.scoped('never writes a cookie value, a localStorage value or a URL in plaintext', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const store = yield* open(dir)
      for (const id of ['errand-one', 'errand-two']) yield* store.put(sampleRecord(id, 0, 'A'))
      yield* store.update('errand-one', (r) => ({ ...r, lentSites: [...r.lentSites, 'more.example'] }))
      const files = yield* Effect.promise(() => allFiles(dir))
      const sealed = files.filter((f) => f.path.endsWith('.sealed'))
      expect(sealed).toHaveLength(2)
      for (const { path, bytes } of files) {
        const text = bytes.toString('latin1')
        for (const secret of [
          SECRETS.cookie,
          SECRETS.local,
          SECRETS.host,
          SECRETS.url,
          'plain-A',
          'shop.example',
          'conv-',
        ]) {
          expect(text.includes(secret), `${secret} in ${path}`).toBe(false)
        }
      }
      // The scan can see plaintext: the errand id is in the header on purpose (not a secret).
      expect(sealed.some((f) => f.bytes.toString('latin1').includes('errand-one'))).toBe(true)
    }),
  )

  it.scoped("never writes a parked file's bytes, name or source in plaintext (F3, S1)", () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const store = yield* open(dir)
      const marker = 'INVOICE-MARKER-7f3a9c'
      const data = Buffer.from(`%PDF-1.4 ${marker} ${'y'.repeat(4000)}`).toString('base64')
      yield* store.put({
        ...sampleRecord('errand-files', 0),
        files: [
          {
            name: 'secret-invoice.pdf',
            type: 'application/pdf',
            at: 1,
            source: 'https://bank.example/inv.pdf',
            origin: 'download',
            data,
          },
        ],
      })
      for (const { path, bytes } of yield* Effect.promise(() => allFiles(dir))) {
        const text = bytes.toString('latin1')
        for (const secret of [marker, data.slice(0, 40), 'secret-invoice', 'bank.example'])
          expect(text.includes(secret), `${secret} in ${path}`).toBe(false)
      }
    }),
  )

  it.scoped('uses a fresh nonce per write: the same record sealed twice gives different bytes', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const store = yield* open(dir)
      const path = join(dir, ERRANDS_DIR, fileNameFor('e1'))
      const record = sampleRecord('e1', 0)
      yield* store.put(record)
      const first = readFileSync(path)
      yield* store.put(record)
      const second = readFileSync(path)
      expect(second.length).toBe(first.length)
      expect(second.equals(first)).toBe(false)
      const nonceAt = 27 + Buffer.byteLength('e1')
      expect(second.subarray(0, nonceAt).equals(first.subarray(0, nonceAt))).toBe(true) // same header
      expect(second.subarray(nonceAt, nonceAt + 12).equals(first.subarray(nonceAt, nonceAt + 12))).toBe(false)
    }),
  )

  it.scoped('names files by the hash of the errand id and keeps them 0600 in a 0700 dir', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const store = yield* open(dir)
      yield* store.put(sampleRecord('../../evil', 0))
      const names = yield* Effect.promise(() => readdir(join(dir, ERRANDS_DIR)))
      expect(names).toEqual([fileNameFor('../../evil')])
      expect(names[0]).toMatch(/^[0-9a-f]{64}\.sealed$/)
      expect(mode(dir)).toBe(0o700)
      expect(mode(join(dir, ERRANDS_DIR))).toBe(0o700)
      expect(mode(join(dir, ERRANDS_DIR, names[0] ?? ''))).toBe(0o600)
    }),
  )

  it.scoped('marks the store derived for backup tools (S3)', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const store = yield* open(dir)
      const tag = readFileSync(join(dir, CACHEDIR_TAG.name), 'utf8')
      expect(tag.startsWith(`${CACHEDIR_TAG_SIGNATURE}\n`)).toBe(true)
      expect(CACHEDIR_TAG_SIGNATURE).toBe('Signature: 8a477f597d28d172789f06886806bc55')
      const manifest: unknown = JSON.parse(readFileSync(join(dir, BACKUP_EXCLUDE.name), 'utf8'))
      expect(manifest).toMatchObject({ derived: true, excludeFromBackup: true })
      expect(store.isProtectedPath(join(dir, ERRANDS_DIR, 'x.sealed'))).toBe(true)
      expect(store.isProtectedPath(join(dir, '..', 'elsewhere'))).toBe(false)
    }),
  )

  it.scoped('generates a 0600 device key once and reuses it on reopen', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const first = yield* open(dir)
      yield* first.put(sampleRecord('e1', 0))
      const keyPath = join(dir, KEY_FILE)
      const key = readFileSync(keyPath)
      expect(key.length).toBe(32)
      expect(mode(keyPath)).toBe(0o600)
      yield* Effect.promise(() => chmod(keyPath, 0o644))
      const second = yield* open(dir)
      expect(readFileSync(keyPath).equals(key)).toBe(true)
      expect(mode(keyPath)).toBe(0o600) // tightened again
      expect(Option.isSome(yield* second.get('e1'))).toBe(true)
    }),
  )

  it.scoped('uses a supplied key without writing one, and reads back only with that key', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const key = randomBytes(32)
      const store = yield* open(dir, key)
      yield* store.put(sampleRecord('e1', 0))
      expect(yield* Effect.promise(() => readdir(dir))).not.toContain(KEY_FILE)
      const again = yield* open(dir, Uint8Array.from(key))
      expect(Option.isSome(yield* again.get('e1'))).toBe(true)
      const other = yield* open(dir, randomBytes(32))
      const error = yield* Effect.flip(other.get('e1'))
      expect(error).toMatchObject({ _tag: 'RecordUnreadable', reason: 'foreign-key', errandId: 'e1' })
      expect(yield* other.list()).toEqual([{ errandId: 'e1', parkedAt: 0 }]) // headers stay readable
    }),
  )

  it.scoped('replaces a device key file of the wrong length; old records then read as foreign-key', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      yield* (yield* open(dir)).put(sampleRecord('e1', 0))
      yield* Effect.promise(() => writeFile(join(dir, KEY_FILE), randomBytes(7)))
      const store = yield* open(dir)
      expect(readFileSync(join(dir, KEY_FILE)).length).toBe(32)
      expect(yield* Effect.flip(store.get('e1'))).toMatchObject({ reason: 'foreign-key' })
    }),
  )

  it.scoped('fails to build with a clear config error for a bad key or bad options', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const badKey = yield* Effect.flip(
        SealedStore.pipe(Effect.provide(SealedStore.layer({ dir, key: Redacted.make(randomBytes(16)) }))),
      )
      expect(badKey).toMatchObject({ _tag: 'StoreConfigError', reason: 'invalid-key' })
      expect(badKey.message).toContain('32 bytes')
      const badOptions = yield* Effect.flip(
        SealedStore.pipe(Effect.provide(SealedStore.layer({ dir, maxRecords: 0, maxAgeMs: 1.5 }))),
      )
      expect(badOptions).toMatchObject({ _tag: 'StoreConfigError', reason: 'invalid-options' })
      expect(badOptions.message).toContain('maxRecords must be an integer in 1..100000')
      expect(badOptions.message).toContain('maxAgeMs')
    }),
  )

  it.scoped("refuses a non-empty directory that is not a store (never tags someone's home)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* Effect.promise(() => writeFile(join(dir, 'notes.txt'), 'mine'))
      const error = yield* Effect.flip(SealedStore.pipe(Effect.provide(SealedStore.layer({ dir }))))
      expect(error).toMatchObject({ _tag: 'StoreConfigError', reason: 'invalid-options' })
      expect(yield* Effect.promise(() => readdir(dir))).toEqual(['notes.txt'])
    }),
  )

  it.scoped('cleans temp files a killed write left behind, and never lists them', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const store = yield* open(dir)
      yield* store.put(sampleRecord('e1', 0))
      const errands = join(dir, ERRANDS_DIR)
      const leftover = `.${fileNameFor('e1')}.0123456789abcdef.tmp`
      yield* Effect.promise(() => writeFile(join(errands, leftover), 'half a wri'))
      yield* Effect.promise(() => writeFile(join(dir, `.${KEY_FILE}.feedfacecafebeef.tmp`), 'half a key'))
      expect(yield* store.list()).toEqual([{ errandId: 'e1', parkedAt: 0 }])
      expect(yield* store.problems()).toEqual([])
      const reopened = yield* open(dir)
      expect(yield* Effect.promise(() => readdir(errands))).toEqual([fileNameFor('e1')])
      expect((yield* Effect.promise(() => readdir(dir))).filter((n) => n.endsWith('.tmp'))).toEqual([])
      expect(Option.isSome(yield* reopened.get('e1'))).toBe(true)
    }),
  )

  it.scoped('applies retention on open and, when asked, every pruneIntervalMs in a scoped fiber', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const first = yield* open(dir)
      yield* first.put(sampleRecord('old', 0))
      yield* TestClock.setTime(15 * DAY_MS)
      const reopened = yield* open(dir)
      expect(yield* reopened.list()).toEqual([])

      const swept = yield* open(dir, undefined, { pruneIntervalMs: 60_000 })
      yield* swept.put(sampleRecord('later', 15 * DAY_MS))
      yield* TestClock.adjust(15 * DAY_MS)
      // The sweep did real file I/O after the virtual sleep: wait (in real time) for it.
      let left = yield* swept.list()
      for (let i = 0; i < 100 && left.length > 0; i++) {
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
        left = yield* swept.list()
      }
      expect(left).toEqual([])
    }),
  )

  it.scoped("keeps the dir's markers untouched when they are already right", () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      yield* open(dir)
      const before = statSync(join(dir, CACHEDIR_TAG.name)).ino
      yield* open(dir)
      expect(statSync(join(dir, CACHEDIR_TAG.name)).ino).toBe(before)
      expect(yield* Effect.promise(() => readFile(join(dir, BACKUP_EXCLUDE.name), 'utf8'))).toBe(
        BACKUP_EXCLUDE.contents,
      )
    }),
  )
})
