import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { Effect, Option, Redacted } from 'effect'
import { StoreConfigError, type StoreError } from './errors.ts'
import { deviceKey, KEY_BYTES, type DeviceKey } from './format.ts'
import { attempt, attemptIfExists, errnoCode, toStoreError, writeAtomic, type StoreFs } from './fs.ts'

/**
 * The device key's file name inside the store directory.
 *
 * @example
 * join(dir, KEY_FILE) // '<dir>/device.key'
 */
export const KEY_FILE = 'device.key'
const KEY_MODE = 0o600

/**
 * Checks an embedder-supplied key: exactly 32 bytes.
 *
 * @example
 * const key = yield* suppliedKey(Redacted.make(randomBytes(32)))
 */
export const suppliedKey = (key: Redacted.Redacted<Uint8Array>): Effect.Effect<DeviceKey, StoreConfigError> => {
  const raw = Redacted.value(key)
  return raw.length === KEY_BYTES
    ? Effect.succeed(deviceKey(raw))
    : Effect.fail(
        new StoreConfigError({
          reason: 'invalid-key',
          message: `The sealed store's key must be ${KEY_BYTES} bytes (AES-256); the one supplied has ${raw.length}.`,
        }),
      )
}

/**
 * Creates `dir/device.key` if it is absent, atomically: a 0600 temp file is fsynced and then
 * hard-linked into place, which fails if another process won the race, in which case its key
 * is used. A key file whose length is wrong is replaced by a new key (the records sealed under
 * the lost key then read as `foreign-key`).
 */
const createKey = (fs: StoreFs, dir: string, replace: boolean): Effect.Effect<Option.Option<DeviceKey>, StoreError> => {
  const raw = randomBytes(KEY_BYTES)
  if (replace) {
    return writeAtomic(fs, dir, KEY_FILE, raw, KEY_MODE, 'replace the device key').pipe(
      Effect.as(Option.some(deviceKey(raw))),
    )
  }
  const temp = join(dir, `.${KEY_FILE}.${randomBytes(8).toString('hex')}.tmp`)
  const final = join(dir, KEY_FILE)
  const op = 'create the device key'
  const linked = Effect.tryPromise({ try: () => fs.link(temp, final), catch: (cause) => cause }).pipe(
    Effect.as(true),
    Effect.catchAll((cause) => {
      const code = errnoCode(cause)
      // Someone else created it between our read and our link: use theirs.
      if (code === 'EEXIST') return Effect.succeed(false)
      // A file system without hard links: a rename is atomic too, only not exclusive.
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') {
        return attempt(op, () => fs.rename(temp, final)).pipe(Effect.as(true))
      }
      return Effect.fail(toStoreError(op, cause))
    }),
  )
  return attempt(op, () => fs.writeNew(temp, raw, KEY_MODE)).pipe(
    Effect.andThen(linked),
    Effect.ensuring(Effect.promise(() => fs.unlink(temp).catch(() => undefined))),
    Effect.tap(() => attempt(op, () => fs.syncDir(dir))),
    Effect.map((won) => (won ? Option.some(deviceKey(raw)) : Option.none())),
  )
}

/**
 * Loads the device key from `dir/device.key`, creating it (mode 0600, crash-safely) on first
 * use and tightening its mode if someone loosened it. The key's bytes are never logged.
 *
 * @example
 * const key = yield* loadOrCreateKey(nodeFs, '/home/me/.errands/store')
 */
export const loadOrCreateKey = (fs: StoreFs, dir: string): Effect.Effect<DeviceKey, StoreError> =>
  Effect.gen(function* () {
    const path = join(dir, KEY_FILE)
    for (let attemptNo = 0; attemptNo < 3; attemptNo++) {
      const existing = yield* attemptIfExists('read the device key', () => fs.readFile(path))
      if (Option.isSome(existing) && existing.value.length === KEY_BYTES) {
        const { mode } = yield* attempt('read the device key', () => fs.stat(path))
        if ((mode & 0o077) !== 0) yield* attempt('protect the device key', () => fs.chmod(path, KEY_MODE))
        return deviceKey(existing.value)
      }
      if (Option.isSome(existing)) {
        yield* Effect.logWarning(
          "The sealed store's device key file has the wrong length; a new key was made and the parked errands sealed " +
            'under the old one cannot be resumed.',
        )
      }
      const created = yield* createKey(fs, dir, Option.isSome(existing))
      if (Option.isSome(created)) return created.value
    }
    return yield* Effect.fail(toStoreError('create the device key', undefined))
  })
