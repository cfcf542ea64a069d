import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect, Layer, type Scope } from 'effect'
import type { ParkedRecord } from './record.ts'
import { SealedStore } from './SealedStore.ts'
import type { SealedStoreOptions } from './shape.ts'

/*
 * Test support only (imported by the *.test.ts files beside it and by test/store): records
 * with distinctive secrets, throw-away store directories, and a file walker.
 */

/**
 * Distinctive strings that must never appear on disk in plaintext.
 *
 * @example
 * expect(fileText.includes(SECRETS.cookie)).toBe(false)
 */
export const SECRETS = {
  cookie: 'ck-7f3a9e1b-SECRET-COOKIE-VALUE',
  local: 'ls-4c2d8e0a-SECRET-LOCAL-VALUE',
  host: 'secret-host-91b2.example',
  url: 'https://secret-host-91b2.example/inbox-q8z?token=u-5e6f',
} as const

/**
 * A parked record for `errandId` whose cookie, localStorage and URL carry `SECRETS` plus a
 * `tag`, so two versions of one errand's record are told apart.
 *
 * @example
 * const r = sampleRecord('e1', 0, 'A')
 */
export const sampleRecord = (errandId: string, parkedAt: number, tag = 'A'): ParkedRecord => ({
  errandId,
  conversationId: `conv-${errandId}`,
  kind: 'task',
  reason: 'task',
  lentSites: ['shop.example'],
  snapshot: {
    storage: {
      cookies: [
        {
          name: 'sid',
          value: `${SECRETS.cookie}-${tag}`,
          domain: '.shop.example',
          path: '/',
          expires: -1,
          httpOnly: true,
          secure: true,
          sameSite: 'Lax',
        },
        {
          name: 'pref',
          value: `plain-${tag}`,
          domain: SECRETS.host,
          path: '/',
          expires: 1_900_000_000,
          httpOnly: false,
          secure: true,
          sameSite: 'None',
        },
      ],
      origins: [
        { origin: `https://${SECRETS.host}`, localStorage: [{ name: 'token', value: `${SECRETS.local}-${tag}` }] },
      ],
    },
    tabs: [
      { url: `${SECRETS.url}&v=${tag}`, active: true },
      { url: 'about:blank', active: false },
    ],
    takenAt: parkedAt,
  },
  parkedAt,
})

/**
 * A fresh temporary directory, removed when the scope closes. The store lives in `<tmp>/store`.
 *
 * @example
 * const dir = yield* tempDir
 */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), 'errands-store-'))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true })),
)

/**
 * A disk store in a fresh temporary directory.
 *
 * @example
 * Effect.provide(program, diskLayer({ maxRecords: 2 }))
 */
export const diskLayer = (options: Omit<SealedStoreOptions, 'dir'> = {}): Layer.Layer<SealedStore, unknown> =>
  Layer.unwrapScoped(Effect.map(tempDir, (dir) => SealedStore.layer({ ...options, dir: join(dir, 'store') })))

/**
 * Every file under `dir` (recursively) with its bytes.
 *
 * @example
 * const files = await allFiles(store.dir!)
 */
export const allFiles = async (
  dir: string,
): Promise<ReadonlyArray<{ readonly path: string; readonly bytes: Buffer }>> => {
  const out: Array<{ path: string; bytes: Buffer }> = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await allFiles(path)))
    else out.push({ path, bytes: await readFile(path) })
  }
  return out
}
