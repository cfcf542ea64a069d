import { describe, expect, it } from '@effect/vitest'
import { randomBytes } from 'node:crypto'
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Effect, Option } from 'effect'
import { ERRANDS_DIR, makeDisk } from './disk.ts'
import { sampleRecord, SECRETS, tempDir } from './fixtures.ts'
import { deviceKey } from './format.ts'
import { nodeFs, toStoreError, type StoreFs } from './fs.ts'
import { KEY_FILE, loadOrCreateKey } from './key.ts'

const fail = (code: string) => Promise.reject(Object.assign(new Error(`${code}: simulated`), { code }))

/** The real fs, with the calls named in `broken` failing with `code` while `broken.on` is true. */
const faulty = (code: string, calls: ReadonlyArray<keyof StoreFs>) => {
  const broken = { on: false }
  const fs = Object.fromEntries(
    Object.entries(nodeFs).map(([name, f]) => [
      name,
      (...args: Array<never>) =>
        broken.on && calls.includes(name as keyof StoreFs)
          ? fail(code)
          : (f as (...a: Array<never>) => Promise<unknown>)(...args),
    ]),
  ) as unknown as StoreFs
  return { fs, broken }
}

describe('file-system failures', () => {
  it('maps errno codes to reasons, with messages that name only the operation and the code', () => {
    const cases: ReadonlyArray<[string | undefined, string]> = [
      ['ENOSPC', 'disk-full'],
      ['EDQUOT', 'disk-full'],
      ['EACCES', 'permission'],
      ['EPERM', 'permission'],
      ['EROFS', 'permission'],
      ['EIO', 'io'],
      ['ENOENT', 'io'],
      [undefined, 'io'],
    ]
    for (const [code, reason] of cases) {
      const error = toStoreError(
        'write a parked errand',
        code === undefined ? new Error('x') : Object.assign(new Error('x'), { code }),
      )
      expect(error.reason, String(code)).toBe(reason)
      expect(error.message).toContain('write a parked errand')
    }
    expect(toStoreError('write', Object.assign(new Error(), { code: 'ENOSPC' })).message).toContain('disk is full')
  })

  for (const [code, reason, calls] of [
    ['ENOSPC', 'disk-full', ['writeNew']],
    ['ENOSPC', 'disk-full', ['syncDir']],
    ['EACCES', 'permission', ['rename']],
    ['EIO', 'io', ['writeNew']],
  ] as const) {
    it.scoped(
      `a put failing in ${calls.join(',')} with ${code} is StoreError(${reason}); the old record stays, no temp file ` +
        `is left`,
      () =>
        Effect.gen(function* () {
          const dir = join(yield* tempDir, 'store')
          const { fs, broken } = faulty(code, calls)
          const store = yield* makeDisk({ dir }, fs)
          yield* store.put(sampleRecord('e1', 0, 'old'))
          broken.on = true
          const error = yield* Effect.flip(store.put(sampleRecord('e1', 0, 'new')))
          expect(error).toMatchObject({ _tag: 'StoreError', reason })
          expect(error.message).not.toContain(SECRETS.cookie)
          broken.on = false
          const kept = Option.getOrThrow(yield* store.get('e1'))
          // A failed fsync of the directory comes after the rename: the new state is in place then.
          const expected = calls[0] === 'syncDir' ? 'plain-new' : 'plain-old'
          expect(kept.snapshot.storage.cookies[1]?.value).toBe(expected)
          expect(readdirSync(join(dir, ERRANDS_DIR)).filter((n) => n.endsWith('.tmp'))).toEqual([])
        }),
    )
  }

  it.scoped('list and get report a failing disk as StoreError(io), not a crash', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const { fs, broken } = faulty('EIO', ['readdir', 'readFile'])
      const store = yield* makeDisk({ dir }, fs)
      yield* store.put(sampleRecord('e1', 0))
      broken.on = true
      expect(yield* Effect.flip(store.list())).toMatchObject({ _tag: 'StoreError', reason: 'io' })
      expect(yield* Effect.flip(store.get('e1'))).toMatchObject({ _tag: 'StoreError', reason: 'io' })
    }),
  )

  it.scoped('opening on a read-only location fails with StoreError(permission)', () =>
    Effect.gen(function* () {
      const dir = join(yield* tempDir, 'store')
      const { fs, broken } = faulty('EACCES', ['mkdir'])
      broken.on = true
      expect(yield* Effect.flip(makeDisk({ dir }, fs))).toMatchObject({ _tag: 'StoreError', reason: 'permission' })
    }),
  )

  it.scoped('when another process creates the device key first, its key is used', () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const theirs = randomBytes(32)
      const racing: StoreFs = {
        ...nodeFs,
        link: (from, to) => {
          writeFileSync(to, theirs, { mode: 0o600 })
          return nodeFs.link(from, to)
        },
      }
      const key = yield* loadOrCreateKey(racing, dir)
      expect(Buffer.from(key.id).equals(Buffer.from(deviceKey(theirs).id))).toBe(true)
      expect(readdirSync(dir)).toEqual([KEY_FILE]) // the temp file is gone
    }),
  )

  it.scoped('creating the device key on a full disk is StoreError(disk-full) and leaves no key behind', () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const error = yield* Effect.flip(loadOrCreateKey({ ...nodeFs, writeNew: () => fail('ENOSPC') }, dir))
      expect(error).toMatchObject({ _tag: 'StoreError', reason: 'disk-full' })
      expect(readdirSync(dir)).toEqual([])
    }),
  )
})
