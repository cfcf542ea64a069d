/**
 * The live view's Passwords page, its words (W1, docs/passwords.md): the signed-in person lists, adds,
 * changes and removes saved sign-ins and imports a Chrome or Firefox CSV export (its routes: `endpoints.ts`,
 * `routes.ts`). The vault is the host's (`LivePasswords`, a port: the live view never imports the passwords
 * package's store); every answer is built here field by field and encoded with its Schema, so no password or
 * TOTP secret goes back even if the port's views grew one (W4). An import reads up to `MAX_IMPORT_BODY`; every
 * other route the live API's 16 KiB.
 *
 * @example
 * Effect.map(passwords.list, (list) => ({ passwords: list.map(shown) }))
 */
import { Schema, type Effect } from 'effect'

/** The largest CSV import the live view reads (bytes): an export of thousands of sign-ins. */
export const MAX_IMPORT_BODY = 1024 * 1024

/** A saved sign-in as the page sees it: never its password or TOTP secret. */
export const LiveEntrySchema = Schema.Struct({
  id: Schema.String,
  site: Schema.String,
  username: Schema.String,
  /** Whether a TOTP secret is kept. */
  totp: Schema.Boolean,
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
}).annotations({ identifier: 'LivePasswordEntry' })
/** A saved sign-in as the page sees it. */
export type LivePasswordEntry = typeof LiveEntrySchema.Type

/** What an import did: how many were added, updated, skipped, and which rows were refused (never their values). */
export const LiveImportReportSchema = Schema.Struct({
  added: Schema.Number,
  updated: Schema.Number,
  skipped: Schema.Number,
  refused: Schema.Array(Schema.Struct({ row: Schema.Number, reason: Schema.String })),
}).annotations({ identifier: 'LiveImportReport' })

/** A row of an import the vault did not take: its number (1: the first after the header) and why, never its values. */
export interface LiveRefusedRow {
  readonly row: number
  /** Which field was missing or wrong (`no-url`, `no-password`, `site`, `username`, `password`, `totp`). */
  readonly reason: string
}

/** What an import did. */
export interface LiveImportReport {
  readonly added: number
  readonly updated: number
  readonly skipped: number
  readonly refused?: ReadonlyArray<LiveRefusedRow> | undefined
}

/** A new sign-in, or a change to one (`totp: null` forgets the TOTP secret). */
export interface LivePasswordFields {
  readonly site?: string | undefined
  readonly username?: string | undefined
  readonly password?: string | undefined
  readonly totp?: string | null | undefined
}

/**
 * The person's vault as the host gives it to the live view; its errors are tagged with their own
 * HTTP status (the edge renders them).
 */
export interface LivePasswords {
  readonly list: Effect.Effect<ReadonlyArray<LivePasswordEntry>, unknown>
  readonly add: (entry: {
    readonly site: string
    readonly username: string
    readonly password: string
    readonly totp?: string | null | undefined
  }) => Effect.Effect<LivePasswordEntry, unknown>
  readonly update: (id: string, patch: LivePasswordFields) => Effect.Effect<LivePasswordEntry, unknown>
  readonly remove: (id: string) => Effect.Effect<void, unknown>
  readonly importCsv: (text: string) => Effect.Effect<LiveImportReport, unknown>
}

// Each refusal's message is its own: Schema's default would quote the value it refused (W4).
const text = (max: number, what: string) =>
  Schema.String.pipe(Schema.maxLength(max, { message: () => `${what} of at most ${max} characters` }))
const Totp = Schema.optional(Schema.NullOr(text(2048, 'a TOTP secret')))

/** A new sign-in. */
export const NewBody = Schema.Struct({
  site: text(2048, 'a site'),
  username: text(512, 'a user name'),
  password: text(4096, 'a password'),
  totp: Totp,
})
/** A change to a sign-in. */
export const PatchBody = Schema.Struct({
  site: Schema.optional(NewBody.fields.site),
  username: Schema.optional(NewBody.fields.username),
  password: Schema.optional(NewBody.fields.password),
  totp: Totp,
})
/** An export's text. */
export const ImportBody = Schema.Struct({ csv: text(MAX_IMPORT_BODY, 'an export') })

/** The page's view of an entry, field by field (W4). @example list.map(shown) */
export const shown = (e: LivePasswordEntry): LivePasswordEntry => ({
  id: e.id,
  site: e.site,
  username: e.username,
  totp: e.totp === true,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
})

/** The page's view of an import's report, field by field. @example shownReport(report).refused */
export const shownReport = (r: LiveImportReport): Required<LiveImportReport> => ({
  added: r.added,
  updated: r.updated,
  skipped: r.skipped,
  refused: (r.refused ?? []).map((x) => ({ row: x.row, reason: x.reason })),
})
