import { randomBytes } from 'node:crypto'
import { constants, promises as fsp } from 'node:fs'
import { join } from 'node:path'
import { Effect, Option } from 'effect'
import { StoreError } from './errors.ts'

/**
 * The few file-system calls the store makes, behind one small interface so tests can inject
 * failures (a full disk, a read-only directory) without touching the real disk's state.
 *
 * @example
 * const full: StoreFs = { ...nodeFs, writeNew: () => Promise.reject(Object.assign(new Error('full'), { code: 'ENOSPC'
 * })) }
 */
export interface StoreFs {
  /** Creates the directory and its parents; the mode applies to directories it creates. */
  readonly mkdir: (path: string, mode: number) => Promise<void>
  readonly chmod: (path: string, mode: number) => Promise<void>
  readonly stat: (path: string) => Promise<{ readonly mode: number; readonly size: number }>
  readonly readdir: (path: string) => Promise<ReadonlyArray<string>>
  readonly readFile: (path: string) => Promise<Uint8Array>
  /** The first `max` bytes (fewer if the file is shorter) and the file's size. */
  readonly readPrefix: (path: string, max: number) => Promise<{ readonly bytes: Uint8Array; readonly size: number }>
  /** Creates a file that must not exist, writes all of `data`, fsyncs and closes it. */
  readonly writeNew: (path: string, data: Uint8Array, mode: number) => Promise<void>
  readonly rename: (from: string, to: string) => Promise<void>
  /** Hard-links `from` to `to`; fails with EEXIST when `to` exists (atomic create-if-absent). */
  readonly link: (from: string, to: string) => Promise<void>
  readonly unlink: (path: string) => Promise<void>
  /** Fsyncs a directory so a rename or unlink in it survives power loss. */
  readonly syncDir: (path: string) => Promise<void>
}

/**
 * The real file system (`node:fs/promises`).
 *
 * @example
 * const fs: StoreFs = nodeFs
 */
export const nodeFs: StoreFs = {
  mkdir: async (path, mode) => {
    await fsp.mkdir(path, { recursive: true, mode })
  },
  chmod: (path, mode) => fsp.chmod(path, mode),
  stat: async (path) => {
    const s = await fsp.stat(path)
    return { mode: s.mode, size: s.size }
  },
  readdir: (path) => fsp.readdir(path),
  readFile: async (path) => new Uint8Array(await fsp.readFile(path)),
  readPrefix: async (path, max) => {
    const handle = await fsp.open(path, 'r')
    try {
      const size = (await handle.stat()).size
      const buffer = new Uint8Array(Math.min(max, size))
      let read = 0
      while (read < buffer.length) {
        const { bytesRead } = await handle.read(buffer, read, buffer.length - read, read)
        if (bytesRead === 0) break
        read += bytesRead
      }
      return { bytes: buffer.subarray(0, read), size }
    } finally {
      await handle.close()
    }
  },
  writeNew: async (path, data, mode) => {
    const handle = await fsp.open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, mode)
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
  },
  rename: (from, to) => fsp.rename(from, to),
  link: (from, to) => fsp.link(from, to),
  unlink: (path) => fsp.unlink(path),
  syncDir: async (path) => {
    // Windows cannot open a directory for fsync; its renames are durable through the journal.
    if (process.platform === 'win32') return
    const handle = await fsp.open(path, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  },
}

/**
 * The errno code of a Node file-system error, if it has one.
 *
 * @example
 * errnoCode(Object.assign(new Error(), { code: 'ENOSPC' })) // 'ENOSPC'
 */
export const errnoCode = (cause: unknown): string | undefined =>
  typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string'
    ? cause.code
    : undefined

const reasonOf = (code: string | undefined): StoreError['reason'] => {
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return 'disk-full'
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 'permission'
    default:
      return 'io'
  }
}

const advice: Record<StoreError['reason'], string> = {
  'disk-full': 'the disk is full; free some space and try again',
  permission: 'permission denied; check the owner and mode of the store directory',
  io: 'a file-system error occurred',
}

/**
 * Turns a file-system failure into a `StoreError`. The message names the operation and the
 * errno code only: no path contents, no key, no record data.
 *
 * @example
 * toStoreError('write a parked errand', Object.assign(new Error(), { code: 'ENOSPC' })).reason // 'disk-full'
 */
export const toStoreError = (operation: string, cause: unknown): StoreError => {
  const code = errnoCode(cause)
  const reason = reasonOf(code)
  return new StoreError({
    reason,
    message: `Could not ${operation} in the sealed store: ${advice[reason]}${code === undefined ? '' : ` (${code})`}.`,
  })
}

/**
 * Runs one file-system call as an Effect, failing with a `StoreError` for `operation`.
 *
 * @example
 * const names = attempt('list parked errands', () => fs.readdir(dir))
 */
export const attempt = <A>(operation: string, f: () => Promise<A>): Effect.Effect<A, StoreError> =>
  Effect.tryPromise({ try: f, catch: (cause) => toStoreError(operation, cause) })

/**
 * Like `attempt`, but a missing file (ENOENT) is `None` instead of an error.
 *
 * @example
 * const bytes = attemptIfExists('read a parked errand', () => fs.readFile(path))
 */
export const attemptIfExists = <A>(
  operation: string,
  f: () => Promise<A>,
): Effect.Effect<Option.Option<A>, StoreError> =>
  Effect.tryPromise({ try: f, catch: (cause) => cause }).pipe(
    Effect.map(Option.some),
    Effect.catchAll((cause) =>
      errnoCode(cause) === 'ENOENT' ? Effect.succeed(Option.none<A>()) : Effect.fail(toStoreError(operation, cause)),
    ),
  )

/**
 * Names of temp files: `.<final name>.<random>.tmp`, so a leftover one is recognised and cleaned.
 *
 * @example
 * isTempName('.abc.sealed.0123456789abcdef.tmp') // true
 */
export const isTempName = (name: string): boolean => name.startsWith('.') && name.endsWith('.tmp')

/**
 * Writes `data` to `dir/name` crash-safely: a new temp file in the same directory, fsync,
 * rename over the old file, fsync the directory. A kill at any moment leaves the old file or
 * the new one; on failure the temp file is removed and the old file is untouched.
 *
 * @example
 * yield* writeAtomic(nodeFs, dir, 'abc.sealed', bytes, 0o600, 'write a parked errand')
 */
export const writeAtomic = (
  fs: StoreFs,
  dir: string,
  name: string,
  data: Uint8Array,
  mode: number,
  operation: string,
): Effect.Effect<void, StoreError> => {
  const temp = join(dir, `.${name}.${randomBytes(8).toString('hex')}.tmp`)
  return attempt(operation, () => fs.writeNew(temp, data, mode)).pipe(
    Effect.andThen(attempt(operation, () => fs.rename(temp, join(dir, name)))),
    Effect.tapError(() => Effect.promise(() => fs.unlink(temp).catch(() => undefined))),
    Effect.andThen(attempt(operation, () => fs.syncDir(dir))),
  )
}

/**
 * Removes `dir/name` if it exists and fsyncs the directory. Idempotent.
 *
 * @example
 * yield* removeDurably(nodeFs, dir, 'abc.sealed', 'remove a parked errand')
 */
export const removeDurably = (
  fs: StoreFs,
  dir: string,
  name: string,
  operation: string,
): Effect.Effect<void, StoreError> =>
  attemptIfExists(operation, () => fs.unlink(join(dir, name))).pipe(
    Effect.andThen(attempt(operation, () => fs.syncDir(dir))),
  )
