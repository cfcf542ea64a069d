/**
 * The live view's Passwords routes (W1, docs/passwords.md): the signed-in person lists, adds,
 * changes and removes saved sign-ins and imports a Chrome or Firefox CSV export. The vault is the
 * host's (`LivePasswords`, a port: the live view never imports the passwords package's store); every
 * answer is built here field by field, so no password or TOTP secret goes back even if the port's
 * views grew one (W4). An import reads up to `MAX_IMPORT_BODY`; every other route the live API's
 * 16 KiB.
 *
 * @example
 * const route = passwordsRoute(req, path, { passwords, run })
 * if (route !== undefined) return route
 */
import { BadRequest, checkMethod, decodeBody, NotFound, readNodeBody, utf8, type EdgeError } from '@errands/edge'
import { Effect, Schema } from 'effect'
import type * as http from 'node:http'
import { MAX_LIVE_BODY } from './api.ts'
import { paths } from './protocol.ts'

/** The largest CSV import the live view reads (bytes): an export of thousands of sign-ins. */
export const MAX_IMPORT_BODY = 1024 * 1024

/** A saved sign-in as the page sees it: never its password or TOTP secret. */
export interface LivePasswordEntry {
  readonly id: string
  readonly site: string
  readonly username: string
  /** Whether a TOTP secret is kept. */
  readonly totp: boolean
  readonly createdAt: number
  readonly updatedAt: number
}

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

const NewBody = Schema.Struct({
  site: text(2048, 'a site'),
  username: text(512, 'a user name'),
  password: text(4096, 'a password'),
  totp: Totp,
})
const PatchBody = Schema.Struct({
  site: Schema.optional(NewBody.fields.site),
  username: Schema.optional(NewBody.fields.username),
  password: Schema.optional(NewBody.fields.password),
  totp: Totp,
})
const ImportBody = Schema.Struct({ csv: text(MAX_IMPORT_BODY, 'an export') })

const ID = /^[A-Za-z0-9-]{1,64}$/

/** The page's view of an entry, field by field (W4). */
const shown = (e: LivePasswordEntry): LivePasswordEntry => ({
  id: e.id,
  site: e.site,
  username: e.username,
  totp: e.totp === true,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
})

const shownReport = (r: LiveImportReport): Required<LiveImportReport> => ({
  added: r.added,
  updated: r.updated,
  skipped: r.skipped,
  refused: (r.refused ?? []).map((x) => ({ row: x.row, reason: x.reason })),
})

const body = <A, I>(req: http.IncomingMessage, schema: Schema.Schema<A, I>, limit: number) =>
  Effect.flatMap(readNodeBody(req, limit), (bytes) => decodeBody(schema, utf8(bytes)))

/** What a passwords route does: an effect whose value is the JSON answer. */
export type PasswordsAction = Effect.Effect<unknown, unknown>

/**
 * The action for a path under `/live/api/passwords`, a refusal, or `undefined` when the path is
 * another route's.
 *
 * @example
 * passwordsRoute(req, '/live/api/passwords', passwords) // Effect of { passwords: [...] }
 */
export const passwordsRoute = (
  req: http.IncomingMessage,
  path: string,
  passwords: LivePasswords | undefined,
): PasswordsAction | EdgeError | undefined => {
  if (path !== paths.passwords && !path.startsWith(`${paths.passwords}/`)) return undefined
  if (passwords === undefined)
    return new NotFound({ reason: 'no-route', message: 'This host keeps no passwords (no vault is wired in).' })
  const method = req.method ?? 'GET'
  if (path === paths.passwords) {
    const wrong = checkMethod(method, ['GET', 'POST'], path)
    if (wrong) return wrong
    if (method === 'GET') return Effect.map(passwords.list, (list) => ({ passwords: list.map(shown) }))
    return Effect.map(
      Effect.flatMap(body(req, NewBody, MAX_LIVE_BODY), (entry) => passwords.add(entry)),
      shown,
    )
  }
  if (path === paths.passwordsImport) {
    const wrong = checkMethod(method, ['POST'], path)
    if (wrong) return wrong
    return Effect.map(
      Effect.flatMap(body(req, ImportBody, MAX_IMPORT_BODY), ({ csv }) => passwords.importCsv(csv)),
      shownReport,
    )
  }
  const id = path.slice(paths.passwords.length + 1)
  if (!ID.test(id))
    return new BadRequest({ reason: 'invalid-parameter', message: 'A password id is 1–64 letters, digits and dashes.' })
  const wrong = checkMethod(method, ['PUT', 'DELETE'], path)
  if (wrong) return wrong
  if (method === 'DELETE') return Effect.as(passwords.remove(id), { deleted: true })
  return Effect.map(
    Effect.flatMap(body(req, PatchBody, MAX_LIVE_BODY), (patch) => passwords.update(id, patch)),
    shown,
  )
}
