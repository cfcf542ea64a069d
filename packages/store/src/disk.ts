import { createHash } from 'node:crypto'
import { join, resolve } from 'node:path'
import { Clock, Effect, Either, Option, type Scope } from 'effect'
import { StoreConfigError, type StoreError } from './errors.ts'
import { claimedErrandId, HEADER_READ_BYTES, parseHeader, type DeviceKey } from './format.ts'
import { attempt, attemptIfExists, isTempName, nodeFs, removeDurably, writeAtomic, type StoreFs } from './fs.ts'
import { loadOrCreateKey, suppliedKey } from './key.ts'
import { BACKUP_EXCLUDE, isProtectedPath, writeMarkers } from './markers.ts'
import type { ParkedEntry, ParkedRecord } from './record.ts'
import { applyUpdate, openRecord, sealRecord } from './sealing.ts'
import { byAge, toDrop } from './retention.ts'
import { decodeOptions, type SealedStoreOptions, type SealedStoreShape, type StoreProblem } from './shape.ts'

/**
 * The sub-directory of the store that holds one sealed file per parked errand.
 *
 * @example
 * join(store.dir!, ERRANDS_DIR, fileNameFor('e1'))
 */
export const ERRANDS_DIR = 'errands'
const DIR_MODE = 0o700
const FILE_MODE = 0o600
const SEALED_NAME = /^[0-9a-f]{64}\.sealed$/

/**
 * The file name of an errand's sealed record: the SHA-256 of its id, so any id (slashes, dots,
 * Unicode) is a safe name, and a file's header can be checked against its name.
 *
 * @example
 * fileNameFor('task/1') // '3f…e1.sealed' (64 hex digits)
 */
export const fileNameFor = (errandId: string): string => `${errandHash(errandId)}.sealed`

/**
 * The SHA-256 of an errand id's UTF-8 bytes in hex: the name a record is kept under (a file
 * name here, a row key in the Postgres store).
 *
 * @example
 * errandHash('e1') // 64 hex digits
 */
export const errandHash = (errandId: string): string => createHash('sha256').update(errandId, 'utf8').digest('hex')

/** The errand id a damaged file's header claims, trusted only if it hashes to the file's name. */
const claimedId = (name: string, bytes: Uint8Array): string | undefined => {
  const id = claimedErrandId(bytes)
  return id !== undefined && fileNameFor(id) === name ? id : undefined
}

type Scanned = { readonly entry: ParkedEntry } | { readonly problem: StoreProblem }

const classify = (name: string, bytes: Uint8Array, size: number): Scanned =>
  Either.match(parseHeader(bytes, size), {
    onLeft: (reason) => ({ problem: { file: name, errandId: claimedId(name, bytes), reason } }),
    onRight: (header) =>
      fileNameFor(header.errandId) === name
        ? { entry: { errandId: header.errandId, parkedAt: header.parkedAt } }
        : { problem: { file: name, errandId: undefined, reason: 'tampered' as const } },
  })

/** The store directory must be new, empty or already a store: never chmod or tag someone's home. */
const checkOwnDir = (fs: StoreFs, dir: string): Effect.Effect<void, StoreError | StoreConfigError> =>
  attemptIfExists('open the store directory', () => fs.readdir(dir)).pipe(
    Effect.flatMap((names) =>
      Option.isNone(names) ||
      names.value.length === 0 ||
      names.value.includes(BACKUP_EXCLUDE.name) ||
      names.value.includes(ERRANDS_DIR)
        ? Effect.void
        : Effect.fail(
            new StoreConfigError({
              reason: 'invalid-options',
              message:
                `The sealed store's dir ${JSON.stringify(dir)} is not empty and is not a sealed store: give ` +
                `the store a directory of its own.`,
            }),
          ),
    ),
  )

const makeDirPrivate = (fs: StoreFs, dir: string): Effect.Effect<void, StoreError> =>
  attempt('create the store directory', () => fs.mkdir(dir, DIR_MODE)).pipe(
    // mkdir's mode is masked by the umask and does not apply to an existing directory.
    Effect.andThen(attempt('protect the store directory', () => fs.chmod(dir, DIR_MODE))),
  )

/** Makes `dir` a store directory (0700, `errands/`, backup markers), refusing a directory that is someone else's. */
const prepareDir = (fs: StoreFs, dir: string): Effect.Effect<void, StoreError | StoreConfigError> =>
  Effect.gen(function* () {
    yield* checkOwnDir(fs, dir)
    yield* makeDirPrivate(fs, dir)
    // errands/ before anything else: a store killed half-way through creation must pass checkOwnDir.
    yield* makeDirPrivate(fs, join(dir, ERRANDS_DIR))
    yield* writeMarkers(fs, dir)
  })

/**
 * The device key of the store directory `dir`, made exactly as the file store makes it (the
 * directory prepared, `device.key` created 0600 on first use), without opening the store: a
 * Postgres store on one machine seals under the same key, and the file store still opens there.
 *
 * @example
 * const key = yield* storeDirKey('/home/me/.errands/store')
 */
export const storeDirKey = (
  dir: string,
  fs: StoreFs = nodeFs,
): Effect.Effect<DeviceKey, StoreError | StoreConfigError> =>
  Effect.andThen(prepareDir(fs, resolve(dir)), loadOrCreateKey(fs, resolve(dir)))

/** Removes temp files a killed write left behind. Only this store's process writes here (one owner). */
const cleanTemps = (fs: StoreFs, dir: string): Effect.Effect<void, StoreError> =>
  attempt('open the store directory', () => fs.readdir(dir)).pipe(
    Effect.flatMap((names) =>
      Effect.forEach(
        names.filter(isTempName),
        (name) => attemptIfExists('clean a leftover temp file', () => fs.unlink(join(dir, name))),
        { discard: true },
      ),
    ),
  )

/**
 * Opens (creating if needed) a sealed store on disk. Used by `SealedStore.layer`; `fs` is
 * injectable so tests can simulate a full disk. Applies retention once on open, and every
 * `pruneIntervalMs` in a scoped fiber when that option is set.
 *
 * @example
 * const store = yield* makeDisk({ dir: '/tmp/store' })
 */
export const makeDisk = (
  options: SealedStoreOptions,
  fs: StoreFs = nodeFs,
): Effect.Effect<SealedStoreShape, StoreError | StoreConfigError, Scope.Scope> =>
  Effect.gen(function* () {
    const decoded = yield* decodeOptions(options)
    const supplied = options.key === undefined ? undefined : yield* suppliedKey(options.key)
    const dir = resolve(decoded.dir)
    const errandsDir = join(dir, ERRANDS_DIR)
    yield* prepareDir(fs, dir)
    const key: DeviceKey = supplied ?? (yield* loadOrCreateKey(fs, dir))
    yield* cleanTemps(fs, dir)
    yield* cleanTemps(fs, errandsDir)

    const lock = yield* Effect.makeSemaphore(1)
    const serial = lock.withPermits(1)
    const pathFor = (errandId: string) => join(errandsDir, fileNameFor(errandId))

    const scan = attempt('list parked errands', () => fs.readdir(errandsDir)).pipe(
      Effect.flatMap((names) =>
        Effect.forEach(
          names.filter((n) => SEALED_NAME.test(n)),
          (name) =>
            attemptIfExists('read a parked errand', () =>
              fs.readPrefix(join(errandsDir, name), HEADER_READ_BYTES),
            ).pipe(Effect.map(Option.map(({ bytes, size }) => classify(name, bytes, size)))),
          { concurrency: 8 },
        ),
      ),
      Effect.map((found) => {
        const entries: Array<ParkedEntry> = []
        const problems: Array<StoreProblem> = []
        for (const item of found) {
          if (Option.isNone(item)) continue // removed between readdir and read
          if ('entry' in item.value) entries.push(item.value.entry)
          else problems.push(item.value.problem)
        }
        entries.sort(byAge)
        problems.sort((a, b) => (a.file < b.file ? -1 : 1))
        return { entries, problems }
      }),
    )

    const get = (errandId: string) =>
      attemptIfExists('read a parked errand', () => fs.readFile(pathFor(errandId))).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.succeed(Option.none<ParkedRecord>()),
            onSome: (bytes) => Effect.map(openRecord(key, errandId, bytes), Option.some),
          }),
        ),
      )

    /** Seals and writes; returns the record as stored (the schema's fields only). */
    const write = (record: ParkedRecord) =>
      Effect.flatMap(sealRecord(key, record), ({ bytes, stored }) =>
        writeAtomic(fs, errandsDir, fileNameFor(record.errandId), bytes, FILE_MODE, 'write a parked errand').pipe(
          Effect.as(stored),
        ),
      )

    const pruneNow = Effect.gen(function* () {
      const { entries } = yield* scan
      const dropped = toDrop(entries, yield* Clock.currentTimeMillis, decoded.retention)
      yield* Effect.forEach(
        dropped,
        (id) => removeDurably(fs, errandsDir, fileNameFor(id), 'drop an old parked errand'),
        { discard: true },
      )
      return dropped
    })

    const store: SealedStoreShape = {
      dir,
      isProtectedPath: (path) => isProtectedPath(path, dir),
      put: (record) =>
        serial(
          write(record).pipe(
            // The record is safely written; a failed retention pass must not report the put as failed.
            Effect.andThen(
              pruneNow.pipe(Effect.catchAll((e) => Effect.logWarning(`Retention after a put failed: ${e.message}`))),
            ),
            Effect.asVoid,
          ),
        ),
      get,
      remove: (errandId) => serial(removeDurably(fs, errandsDir, fileNameFor(errandId), 'remove a parked errand')),
      list: () => Effect.map(scan, (s) => s.entries),
      problems: () => Effect.map(scan, (s) => s.problems),
      discard: (file) =>
        SEALED_NAME.test(file)
          ? serial(
              attemptIfExists('read a parked errand', () =>
                fs.readPrefix(join(errandsDir, file), HEADER_READ_BYTES),
              ).pipe(
                Effect.flatMap((found) =>
                  // A put may have replaced the damaged file since problems() ran: keep the good one.
                  Option.isSome(found) && 'problem' in classify(file, found.value.bytes, found.value.size)
                    ? removeDurably(fs, errandsDir, file, 'discard an unreadable parked errand')
                    : Effect.void,
                ),
              ),
            )
          : Effect.dieMessage(`SealedStore.discard: ${JSON.stringify(file)} is not a sealed file name from problems()`),
      update: (errandId, f) => serial(get(errandId).pipe(Effect.flatMap(applyUpdate(errandId, f, write)))),
      clear: () =>
        serial(
          attempt('clear the sealed store', () => fs.readdir(errandsDir)).pipe(
            Effect.flatMap((names) =>
              Effect.forEach(
                names,
                (name) => attemptIfExists('clear the sealed store', () => fs.unlink(join(errandsDir, name))),
                { discard: true },
              ),
            ),
            Effect.andThen(attempt('clear the sealed store', () => fs.syncDir(errandsDir))),
          ),
        ),
      prune: () => serial(pruneNow),
    }

    yield* store.prune()
    const every = decoded.pruneIntervalMs
    if (every !== undefined) {
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.sleep(every).pipe(
            Effect.andThen(store.prune()),
            Effect.catchAll((e) => Effect.logWarning(`Scheduled retention failed: ${e.message}`)),
          ),
        ),
      )
    }
    return store
  })
