/**
 * The vault's contents as sealed (W1), and the views of them each face may see: the person sees
 * sites, user names and whether a TOTP secret is kept; an agent sees sites and user names. No
 * view holds a password or a TOTP secret (W4).
 *
 * @example
 * Schema.decodeUnknownSync(VaultContents)({ version: 1, entries: [] })
 */
import { Schema } from 'effect'

/** One saved sign-in, as sealed. */
export const StoredEntry = Schema.Struct({
  id: Schema.String,
  /** A registrable domain, or an exact origin (`https://…`). */
  site: Schema.String,
  username: Schema.String,
  password: Schema.String,
  /** The TOTP secret as an `otpauth://totp/` URI. */
  totp: Schema.optional(Schema.String),
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
})
/** One saved sign-in, as sealed. */
export type StoredEntry = typeof StoredEntry.Type

/** The whole vault, as sealed. */
export const VaultContents = Schema.Struct({ version: Schema.Literal(1), entries: Schema.Array(StoredEntry) })
/** The whole vault, as sealed. */
export type VaultContents = typeof VaultContents.Type

/** An entry as the person's face shows it. @example { id, site: 'shop.example', username: 'ann', totp: true, … } */
export const EntryView = Schema.Struct({
  id: Schema.String,
  site: Schema.String,
  username: Schema.String,
  /** Whether a TOTP secret is kept (never the secret). */
  totp: Schema.Boolean,
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
})
/** An entry as the person's face shows it. */
export type EntryView = typeof EntryView.Type

/** A sign-in as an agent may know it exists (W1). @example { site: 'shop.example', username: 'ann', totp: false } */
export const SignInView = Schema.Struct({ site: Schema.String, username: Schema.String, totp: Schema.Boolean })
/** A sign-in as an agent may know it exists. */
export type SignInView = typeof SignInView.Type

/**
 * A new entry from the person (`totp`: base32 or an `otpauth://totp/` URI).
 *
 * @example
 * { site: 'shop.example', username: 'ann', password: '…', totp: 'JBSWY3DPEHPK3PXP' }
 */
export const NewEntry = Schema.Struct({
  site: Schema.String.pipe(Schema.maxLength(2048)),
  username: Schema.String.pipe(Schema.maxLength(512)),
  // A refusal's message is its own: Schema's default quotes the value it refused (W4).
  password: Schema.String.pipe(Schema.maxLength(4096, { message: () => 'a password of at most 4,096 characters' })),
  totp: Schema.optional(
    Schema.NullOr(
      Schema.String.pipe(Schema.maxLength(2048, { message: () => 'a TOTP secret of at most 2,048 characters' })),
    ),
  ),
})
/** A new entry from the person. */
export type NewEntry = typeof NewEntry.Type

/**
 * A change to an entry: what is named changes (`totp: null` forgets the TOTP secret).
 *
 * @example
 * { password: 'a new one' }
 */
export const EntryPatch = Schema.Struct({
  site: Schema.optional(NewEntry.fields.site),
  username: Schema.optional(NewEntry.fields.username),
  password: Schema.optional(NewEntry.fields.password),
  totp: NewEntry.fields.totp,
})
/** A change to an entry. */
export type EntryPatch = typeof EntryPatch.Type

/**
 * What an import did: `refused` names each row not taken (1: the first after the header) and why
 * — which field was missing or wrong — never its values (W4).
 *
 * @example
 * { added: 3, updated: 1, skipped: 1, refused: [{ row: 4, reason: 'no-password' }] }
 */
export const ImportReport = Schema.Struct({
  added: Schema.Number,
  updated: Schema.Number,
  skipped: Schema.Number,
  refused: Schema.Array(
    Schema.Struct({
      row: Schema.Number,
      reason: Schema.Literal('no-url', 'no-password', 'site', 'username', 'password', 'totp'),
    }),
  ),
})
/** What an import did. */
export type ImportReport = typeof ImportReport.Type

/** The person's view of an entry. @example entryView(stored).totp // true */
export const entryView = (e: StoredEntry): EntryView => ({
  id: e.id,
  site: e.site,
  username: e.username,
  totp: e.totp !== undefined,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
})
