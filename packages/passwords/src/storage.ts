/**
 * Where the vault's sealed bytes live (W1, S1, S3): one file, `passwords.sealed`, beside the
 * sealed store's errands under `<dataDir>/store` — the folder marked as derived data that
 * backups skip and the agents' file tools never reach — sealed by the store's own format
 * (AES-256-GCM under the device key, the vault's id as the authenticated header). A cluster keeps
 * the same bytes in a Postgres row instead (`@errands/cluster`'s `PgVault`; `VaultStorage` is the
 * seam), sealed under the key its hosts share.
 *
 * @example
 * const storage = fileStorage('/var/lib/errands/store')
 * const bytes = yield* storage.read // Option<Uint8Array>
 */
import { randomBytes } from 'node:crypto'
import { promises as fsp } from 'node:fs'
import { join } from 'node:path'
import { Effect, Option } from 'effect'
import { VaultUnavailable } from './errors.ts'

/** The vault file's name inside the store folder. */
export const VAULT_FILE = 'passwords.sealed'

/** Reads and writes the vault's sealed bytes, whole. */
export interface VaultStorage {
  /** The sealed bytes, or none before the first save. */
  readonly read: Effect.Effect<Option.Option<Uint8Array>, VaultUnavailable>
  /** Replaces the sealed bytes; a crash leaves the old bytes or the new ones (S4). */
  readonly write: (bytes: Uint8Array) => Effect.Effect<void, VaultUnavailable>
  /**
   * Runs a read-change-write so no other writer of the same bytes runs between its read and its
   * write. One process needs nothing more than the vault's own lock (`alone`); storage that hosts
   * share (a cluster's row) holds its own lock across them, or two hosts adding a password at
   * once would each write over the other's.
   */
  readonly exclusive: <A, E>(work: Effect.Effect<A, E>) => Effect.Effect<A, E | VaultUnavailable>
}

/** `exclusive` for storage only this process writes: the vault's own lock is enough. */
export const alone = <A, E>(work: Effect.Effect<A, E>): Effect.Effect<A, E | VaultUnavailable> => work

const io = (what: string) => () =>
  new VaultUnavailable({ reason: 'io', message: `Could not ${what} the password vault; check the data folder's disk.` })

/**
 * The vault in `<dir>/passwords.sealed`, written crash-safely: a 0600 temp file, fsynced, renamed
 * over the old one, the folder fsynced.
 *
 * @example
 * fileStorage(join(dataDir, 'store'))
 */
export const fileStorage = (dir: string): VaultStorage => {
  const path = join(dir, VAULT_FILE)
  return {
    exclusive: alone,
    read: Effect.tryPromise({
      try: async () => {
        try {
          return Option.some(new Uint8Array(await fsp.readFile(path)))
        } catch (e) {
          if ((e as { code?: unknown }).code === 'ENOENT') return Option.none()
          throw e
        }
      },
      catch: io('read'),
    }),
    write: (bytes) =>
      Effect.tryPromise({
        try: async () => {
          await fsp.mkdir(dir, { recursive: true, mode: 0o700 })
          const temp = join(dir, `.${VAULT_FILE}.${randomBytes(8).toString('hex')}.tmp`)
          const handle = await fsp.open(temp, 'wx', 0o600)
          try {
            await handle.writeFile(bytes)
            await handle.sync()
          } finally {
            await handle.close()
          }
          try {
            await fsp.rename(temp, path)
          } catch (e) {
            await fsp.unlink(temp).catch(() => undefined)
            throw e
          }
          const folder = await fsp.open(dir, 'r')
          await folder.sync().finally(() => folder.close())
        },
        catch: io('save'),
      }),
  }
}

/**
 * A vault kept in memory (tests, and an embedder that keeps no data dir).
 *
 * @example
 * const storage = memoryStorage()
 */
export const memoryStorage = (): VaultStorage & { readonly bytes: () => Uint8Array | undefined } => {
  let held: Uint8Array | undefined
  return {
    exclusive: alone,
    read: Effect.sync(() => Option.fromNullable(held)),
    write: (bytes) =>
      Effect.sync(() => {
        held = bytes
      }),
    bytes: () => held,
  }
}
