/**
 * The person's passwords (W1): a sealed vault only the person manages — add, change, remove,
 * import an export — and from which an errand's fill takes one entry for the page it is on (W2).
 * Every change is sealed and saved before it answers; a failed save changes nothing.
 *
 * @example
 * const vault = yield* Vault
 * yield* vault.add({ site: 'shop.example', username: 'ann', password: 'correct horse' })
 * const entry = yield* vault.forFill('https://shop.example/login', {}) // the secret stays Redacted
 */
import { randomUUID } from 'node:crypto'
import { seal, storeDirKey, suppliedKey, unseal, type DeviceKey } from '@errands/store'
import { Clock, Context, Effect, Either, Layer, Option, Redacted, Schema } from 'effect'
import { readExport, type RefusedRow } from './csv.ts'
import {
  entryView,
  VaultContents,
  type EntryPatch,
  type EntryView,
  type ImportReport,
  type NewEntry,
  type SignInView,
  type StoredEntry,
} from './entries.ts'
import {
  InvalidPasswordEntry,
  NoSuchPassword,
  SeveralPasswords,
  VaultUnavailable,
  WrongSite,
  type VaultError,
} from './errors.ts'
import { pageSite, parseSite, siteAllows, siteText, type EntrySite } from './site.ts'
import { fileStorage, type VaultStorage } from './storage.ts'
import { parseTotp } from './totp.ts'

/** The id the vault is sealed under (the store's authenticated header names it): no errand has it. */
export const VAULT_ID = '@errands/passwords/vault'

/** The most entries a vault keeps. */
export const MAX_ENTRIES = 10_000

/** One entry as a fill takes it: the secrets stay `Redacted` until the request that carries their stand-ins leaves. */
export interface FillEntry {
  readonly site: EntrySite
  readonly username: string
  readonly password: Redacted.Redacted<string>
  /** The TOTP secret's `otpauth://` URI. */
  readonly totp: Redacted.Redacted<string> | undefined
}

/** Which entry a fill wants: a site (else the page's), a user name (else the only one there). */
export interface FillPick {
  readonly site?: string | undefined
  readonly username?: string | undefined
}

/** The vault. */
export interface VaultShape {
  /** Every entry, for the person. */
  readonly list: Effect.Effect<ReadonlyArray<EntryView>, VaultError>
  /** Sites and user names, for an agent (W1). */
  readonly signIns: Effect.Effect<ReadonlyArray<SignInView>, VaultError>
  readonly add: (entry: NewEntry) => Effect.Effect<EntryView, VaultError>
  readonly update: (id: string, patch: EntryPatch) => Effect.Effect<EntryView, VaultError>
  readonly remove: (id: string) => Effect.Effect<void, VaultError>
  /** Imports a Chrome, Firefox or Bitwarden CSV export: a sign-in already kept (site and user name) is updated. */
  readonly importCsv: (text: string) => Effect.Effect<ImportReport, VaultError>
  /**
   * The entry a fill on `url` takes (W2): `pick.site` must be the page's site (else `WrongSite`),
   * and several entries there need `pick.username`.
   */
  readonly forFill: (url: string, pick: FillPick) => Effect.Effect<FillEntry, VaultError | WrongSite | SeveralPasswords>
}

const invalid = (reason: InvalidPasswordEntry['reason'], message: string) =>
  new InvalidPasswordEntry({ reason, message })

/** A checked entry's fields (site, TOTP normalised). */
const checkFields = (e: {
  readonly site: string
  readonly username: string
  readonly password: string
  readonly totp?: string | null | undefined
}): Either.Either<Pick<StoredEntry, 'site' | 'username' | 'password' | 'totp'>, InvalidPasswordEntry> => {
  const site = parseSite(e.site)
  if (site === undefined)
    return Either.left(
      invalid('site', 'The site is a host name (shop.example) or an http(s) origin (https://login.shop.example).'),
    )
  if (/[\u0000-\u001f\u007f]/.test(e.username))
    return Either.left(invalid('username', 'The user name has a control character; send it without.'))
  if (e.password.length === 0) return Either.left(invalid('password', 'The password is empty; send the password.'))
  let totp: string | undefined
  if (e.totp !== undefined && e.totp !== null && e.totp.trim() !== '') {
    totp = parseTotp(e.totp)
    if (totp === undefined)
      return Either.left(
        invalid('totp', 'The TOTP secret is neither base32 (16 or more of A–Z, 2–7) nor an otpauth://totp/ URI.'),
      )
  }
  return Either.right({ site: siteText(site), username: e.username, password: e.password, totp })
}

const EMPTY: VaultContents = { version: 1, entries: [] }

/**
 * Builds the vault over `storage`, sealed under `key`. An unreadable vault fails each call
 * (`VaultUnavailable('unreadable')`) and is never overwritten by one.
 *
 * @example
 * const vault = yield* makeVault(memoryStorage(), key)
 */
export const makeVault = (storage: VaultStorage, key: DeviceKey): Effect.Effect<VaultShape> =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1)

    const load: Effect.Effect<VaultContents, VaultUnavailable> = Effect.flatMap(storage.read, (bytes) => {
      if (Option.isNone(bytes)) return Effect.succeed(EMPTY)
      const opened = unseal(key, VAULT_ID, bytes.value)
      if (Either.isLeft(opened))
        return Effect.fail(
          new VaultUnavailable({
            reason: 'unreadable',
            message:
              `The password vault cannot be opened (${opened.left}): it was changed, cut short or sealed under ` +
              "another device's key. Nothing was changed; restore the file or remove it and add the passwords again.",
          }),
        )
      return Effect.mapError(
        Schema.decodeUnknown(Schema.parseJson(VaultContents))(new TextDecoder().decode(opened.right.plaintext)),
        () =>
          new VaultUnavailable({
            reason: 'unreadable',
            message: 'The password vault holds something that is no vault. Nothing was changed.',
          }),
      )
    })

    const save = (contents: VaultContents) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        storage.write(seal(key, VAULT_ID, now, new TextEncoder().encode(JSON.stringify(contents)))),
      )

    /**
     * Reads, changes and saves under the lock (and the storage's own, where hosts share it); `f`
     * answers what the call answers.
     */
    const change = <A, E>(f: (contents: VaultContents, now: number) => Either.Either<readonly [VaultContents, A], E>) =>
      lock.withPermits(1)(
        storage.exclusive(
          Effect.gen(function* () {
            const contents = yield* load
            const now = yield* Clock.currentTimeMillis
            const [next, answer] = yield* Either.match(f(contents, now), {
              onLeft: (e) => Effect.fail(e),
              onRight: (r) => Effect.succeed(r),
            })
            if (next.entries.length > MAX_ENTRIES)
              return yield* invalid('too-many', `The vault keeps at most ${MAX_ENTRIES} passwords; remove some first.`)
            yield* save(next)
            return answer
          }),
        ),
      )

    const unknownId = (id: string) =>
      new NoSuchPassword({
        reason: 'unknown-id',
        message: `No saved password has the id ${JSON.stringify(id.slice(0, 64))}; list them first.`,
      })

    const vault: VaultShape = {
      list: Effect.map(load, (c) => c.entries.map(entryView)),
      signIns: Effect.map(load, (c) =>
        c.entries.map((e) => ({ site: e.site, username: e.username, totp: e.totp !== undefined })),
      ),
      add: (entry) =>
        change((c, now) =>
          Either.map(checkFields(entry), (fields) => {
            const stored: StoredEntry = { id: randomUUID(), ...fields, createdAt: now, updatedAt: now }
            return [{ ...c, entries: [...c.entries, stored] }, entryView(stored)] as const
          }),
        ),
      update: (id, patch) =>
        change<EntryView, InvalidPasswordEntry | NoSuchPassword>((c, now) => {
          const old = c.entries.find((e) => e.id === id)
          if (old === undefined) return Either.left(unknownId(id))
          const merged = {
            site: patch.site ?? old.site,
            username: patch.username ?? old.username,
            password: patch.password ?? old.password,
            totp: patch.totp === undefined ? old.totp : patch.totp,
          }
          return Either.map(checkFields(merged), (fields) => {
            const stored: StoredEntry = { ...old, ...fields, updatedAt: now }
            return [{ ...c, entries: c.entries.map((e) => (e.id === id ? stored : e)) }, entryView(stored)] as const
          })
        }),
      remove: (id) =>
        change((c) =>
          c.entries.some((e) => e.id === id)
            ? Either.right([{ ...c, entries: c.entries.filter((e) => e.id !== id) }, undefined] as const)
            : Either.left(unknownId(id)),
        ),
      importCsv: (text) =>
        change((c, now) => {
          const read = readExport(text)
          if (read === undefined)
            return Either.left(
              invalid(
                'csv',
                'This is no password export: a CSV whose first line names a url and a password column ' +
                  "(Chrome's and Firefox's exports do).",
              ),
            )
          const entries = [...c.entries]
          let added = 0
          let updated = 0
          const refused: Array<RefusedRow> = [...read.refused]
          for (const row of read.rows) {
            const site = /^https?:\/\//i.test(row.url) ? parseSite(new URL(row.url).hostname) : undefined
            const fields = site === undefined ? undefined : checkFields({ ...row, site: siteText(site) })
            if (fields === undefined || Either.isLeft(fields)) {
              const why = fields === undefined ? 'site' : fields.left.reason
              refused.push({ row: row.row, reason: why === 'csv' || why === 'too-many' ? 'site' : why })
              continue
            }
            const f = fields.right
            const at = entries.findIndex((e) => e.site === f.site && e.username === f.username)
            if (at >= 0) {
              entries[at] = { ...entries[at]!, ...f, totp: f.totp ?? entries[at]!.totp, updatedAt: now }
              updated++
            } else {
              entries.push({ id: randomUUID(), ...f, createdAt: now, updatedAt: now })
              added++
            }
          }
          return Either.right([
            { ...c, entries },
            { added, updated, skipped: refused.length, refused: refused.sort((a, b) => a.row - b.row) },
          ] as const)
        }),
      forFill: (url, pick) =>
        Effect.flatMap(load, (c): Effect.Effect<FillEntry, NoSuchPassword | WrongSite | SeveralPasswords> => {
          const here = pageSite(url)
          let candidates = c.entries.filter((e) => siteAllows(parseSite(e.site)!, url))
          if (pick.site !== undefined) {
            const wanted = parseSite(pick.site)
            const named = wanted === undefined ? [] : c.entries.filter((e) => e.site === siteText(wanted))
            if (named.length === 0)
              return Effect.fail(
                new NoSuchPassword({
                  reason: 'no-entry',
                  message: `No password is saved for ${pick.site.slice(0, 253)}.`,
                }),
              )
            if (!named.some((e) => siteAllows(parseSite(e.site)!, url)))
              return Effect.fail(
                new WrongSite({
                  reason: 'wrong-site',
                  message:
                    `The active tab is on ${here}, not ${named[0]!.site}: a saved password is filled only on its ` +
                    'own site. Nothing was filled; open the real site first.',
                }),
              )
            candidates = named.filter((e) => siteAllows(parseSite(e.site)!, url))
          }
          if (pick.username !== undefined) candidates = candidates.filter((e) => e.username === pick.username)
          if (candidates.length === 0)
            return Effect.fail(
              new NoSuchPassword({
                reason: 'no-entry',
                message:
                  `No password is saved for ${here}${pick.username === undefined ? '' : ' with that user name'}; ` +
                  'ask the person to sign in (POST /v1/session/help).',
              }),
            )
          if (candidates.length > 1)
            return Effect.fail(
              new SeveralPasswords({
                reason: 'several-entries',
                message:
                  `${candidates.length} sign-ins are saved for ${here}; ` + 'name one with "user" (GET /v1/passwords).',
              }),
            )
          const e = candidates[0]!
          return Effect.succeed({
            site: parseSite(e.site)!,
            username: e.username,
            password: Redacted.make(e.password),
            totp: e.totp === undefined ? undefined : Redacted.make(e.totp),
          })
        }),
    }
    return vault
  })

/**
 * The vault service.
 *
 * @example
 * const program = Effect.flatMap(Vault, (v) => v.signIns)
 * Effect.provide(program, Vault.layerFile({ dir: join(dataDir, 'store') }))
 */
export class Vault extends Context.Tag('@errands/passwords/Vault')<Vault, VaultShape>() {
  /**
   * The vault in storage of the embedder's (a cluster's shared row), sealed under a key given as
   * 32 raw bytes (the key a cluster's hosts share, so what one host seals another opens).
   *
   * @example
   * Vault.layer({ key, storage: pgVaultStorage }).pipe(Layer.provide(PgClient.layer({ url })))
   */
  static layer<R>(o: {
    readonly key: Redacted.Redacted<Uint8Array>
    readonly storage: Effect.Effect<VaultStorage, VaultUnavailable, R>
  }): Layer.Layer<Vault, VaultUnavailable, R> {
    return Layer.effect(
      Vault,
      Effect.gen(function* () {
        const key = yield* Effect.mapError(
          suppliedKey(o.key),
          (e) => new VaultUnavailable({ reason: 'io', message: `The password vault has no usable key: ${e.message}` }),
        )
        return yield* makeVault(yield* o.storage, key)
      }),
    )
  }

  /**
   * The vault in `<dir>/passwords.sealed`, sealed under `<dir>/device.key` (the sealed store's
   * key; made on first use) or the embedder's key.
   *
   * @example
   * Vault.layerFile({ dir: join(dataDir, 'store') })
   */
  static layerFile(o: {
    readonly dir: string
    readonly key?: DeviceKey | undefined
    readonly storage?: VaultStorage | undefined
  }): Layer.Layer<Vault, VaultUnavailable> {
    return Layer.effect(
      Vault,
      Effect.gen(function* () {
        const key =
          o.key ??
          (yield* Effect.mapError(
            // Made as the file store makes it, the folder included: a cluster's host stores its errands in
            // Postgres and has no store folder until the vault needs one.
            storeDirKey(o.dir),
            () =>
              new VaultUnavailable({
                reason: 'io',
                message: "The password vault's device key cannot be read or made; check the data folder.",
              }),
          ))
        return yield* makeVault(o.storage ?? fileStorage(o.dir), key)
      }),
    )
  }
}
