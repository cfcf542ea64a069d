import type { IsolationReason, Snapshot } from '@errands/runtime'
import { Either, ParseResult, Schema } from 'effect'

/**
 * What the store keeps for one parked errand (E4, E5): who it belongs to, why it is isolated,
 * which sites were lent to it, and the snapshot to bring it back with.
 *
 * @example
 * const record: ParkedRecord = {
 *   errandId: 'e1', conversationId: 'c1', kind: 'task', reason: 'task', lentSites: [],
 *   snapshot: { storage: { cookies: [], origins: [] }, tabs: [], takenAt: 0 }, parkedAt: 0,
 * }
 */
export interface ParkedRecord {
  /** 1..200 characters of well-formed Unicode. Not a secret (it is in the file's header). */
  readonly errandId: string
  readonly conversationId: string
  readonly kind: 'task' | 'chat'
  readonly reason: IsolationReason
  readonly lentSites: ReadonlyArray<string>
  /** Cookies, localStorage and tab URLs: the secrets this store seals. */
  readonly snapshot: Snapshot
  /** Epoch milliseconds from the caller's Effect `Clock`; retention is judged by it (S2). */
  readonly parkedAt: number
  /**
   * The errand's own upstream proxy URL (issue #21), credentials and all: a secret sealed with the
   * errand, so a resumed errand — in this process or after a restart — leaves through it again.
   */
  readonly upstreamProxy?: string | undefined
  /**
   * The errand's files folder as it was when it parked (F3, issue #25): downloads and staged
   * files with their bytes, sealed in the same payload as the rest, put back when it resumes.
   */
  readonly files?: ReadonlyArray<SealedFile> | undefined
}

/**
 * One file of a parked errand's folder: the runtime's `ErrandFile` with its bytes as base64
 * (the payload is JSON). Its size is its bytes' length.
 *
 * @example
 * const f: SealedFile = { name: 'a.pdf', type: 'application/pdf', at: 0, source: null, origin: 'staged', data:
 * 'JVBERi0=' }
 */
export interface SealedFile {
  readonly name: string
  readonly type: string
  readonly at: number
  readonly source: string | null
  readonly origin: 'download' | 'staged'
  /** The bytes, base64. */
  readonly data: string
}

// With the `u` flag a surrogate pair is one code point outside this range, so only lone ones match.
const loneSurrogate = /[\uD800-\uDFFF]/u

const WellFormed = Schema.String.pipe(
  Schema.filter((s) => !loneSurrogate.test(s), { message: () => 'must be well-formed Unicode (no lone surrogates)' }),
)

/**
 * An errand id as the store accepts it: 1..200 UTF-16 code units, well-formed Unicode (so its
 * UTF-8 bytes in the file header decode back to the same string).
 *
 * @example
 * Schema.is(ErrandId)('task-42') // true
 */
export const ErrandId = WellFormed.pipe(Schema.minLength(1), Schema.maxLength(200))

const Finite = Schema.Number.pipe(Schema.finite())

const CookieSchema = Schema.Struct({
  name: Schema.String,
  value: Schema.String,
  domain: Schema.String,
  path: Schema.String,
  // Finite because JSON cannot carry NaN or Infinity: they would come back as null.
  expires: Finite,
  httpOnly: Schema.Boolean,
  secure: Schema.Boolean,
  sameSite: Schema.Literal('Strict', 'Lax', 'None'),
})

/**
 * Cookies and localStorage of a context (the runtime's `StorageState`) as a Schema: the sealed
 * snapshot's, and what a cluster host lends across the runners' socket (issue #24).
 *
 * @example
 * Schema.is(StorageStateSchema)({ cookies: [], origins: [] }) // true
 */
export const StorageStateSchema = Schema.Struct({
  cookies: Schema.Array(CookieSchema),
  origins: Schema.Array(
    Schema.Struct({
      origin: Schema.String,
      localStorage: Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.String })),
    }),
  ),
})

const OriginStorageSchema = Schema.Struct({
  origin: Schema.String,
  localStorage: Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.String })),
})

const SnapshotSchema = Schema.Struct({
  storage: StorageStateSchema,
  tabs: Schema.Array(
    Schema.Struct({
      url: Schema.String,
      active: Schema.Boolean,
      id: Schema.optional(Schema.String),
      // The tab's sessionStorage (E7); records sealed before it have none.
      sessionStorage: Schema.optional(OriginStorageSchema),
    }),
  ),
  takenAt: Finite,
  // The errand's own IndexedDB (E7), each database as the runtime's opaque clone encoding.
  indexedDB: Schema.optional(
    Schema.Array(
      Schema.Struct({
        origin: Schema.String,
        databases: Schema.Array(Schema.Struct({ name: Schema.String, version: Finite, data: Schema.String })),
      }),
    ),
  ),
})

/**
 * The schema a record must satisfy to be sealed, and that a decrypted payload is decoded with.
 * A payload that decrypts but does not decode is `RecordUnreadable('malformed')`.
 *
 * @example
 * const ok = Schema.is(ParkedRecordSchema)(record)
 */
export const ParkedRecordSchema: Schema.Schema<ParkedRecord> = Schema.Struct({
  errandId: ErrandId,
  conversationId: Schema.String,
  kind: Schema.Literal('task', 'chat'),
  reason: Schema.Literal('task', 'helper', 'own-browser', 'main'),
  lentSites: Schema.Array(Schema.String),
  snapshot: SnapshotSchema,
  parkedAt: Schema.NonNegativeInt,
  upstreamProxy: Schema.optional(Schema.String),
  files: Schema.optional(
    Schema.Array(
      Schema.Struct({
        name: Schema.String,
        type: Schema.String,
        at: Finite,
        source: Schema.NullOr(Schema.String),
        origin: Schema.Literal('download', 'staged'),
        data: Schema.String,
      }),
    ),
  ),
})

const decodeUnknown = Schema.decodeUnknownEither(ParkedRecordSchema, { onExcessProperty: 'ignore' })
const validate = Schema.validateEither(ParkedRecordSchema, { onExcessProperty: 'ignore', errors: 'all' })

/**
 * Where a record breaks the schema, as paths only: ParseError messages quote the offending
 * values, and those may be cookie values (L7), so they never leave this module.
 */
const issuePaths = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => issue.path.map(String).join('.') || '(root)')
    .join(', ')

/**
 * The record's bytes for sealing: its JSON, after checking it against the schema. Only the
 * schema's fields are kept, so a caller's extra properties are never written. A record that
 * breaks the schema is a caller bug, reported with the failing paths only (never the values).
 *
 * @example
 * const bytes = recordToBytes(record)
 */
export const recordToBytes = (record: ParkedRecord): Either.Either<Uint8Array, string> =>
  Either.match(validate(record), {
    onLeft: (error) => Either.left(`invalid ParkedRecord at ${issuePaths(error)}`),
    onRight: (valid) => Either.right(new TextEncoder().encode(JSON.stringify(pick(valid)))),
  })

/**
 * Decodes a decrypted payload. `Left` means the bytes are not a parked record.
 *
 * @example
 * Either.isRight(recordFromBytes(recordToBytes(record).pipe(Either.getOrThrow))) // true
 */
export const recordFromBytes = (bytes: Uint8Array): Either.Either<ParkedRecord, 'malformed'> => {
  let json: unknown
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    return Either.left('malformed')
  }
  return Either.mapLeft(decodeUnknown(json), () => 'malformed' as const)
}

/** A plain copy with exactly the schema's fields, so no caller-owned object is shared or leaked. */
const pick = (r: ParkedRecord): ParkedRecord => ({
  errandId: r.errandId,
  conversationId: r.conversationId,
  kind: r.kind,
  reason: r.reason,
  lentSites: [...r.lentSites],
  snapshot: {
    storage: {
      cookies: r.snapshot.storage.cookies.map((c) => ({
        name: c.name,
        value: c.value,
        domain: c.domain,
        path: c.path,
        expires: c.expires,
        httpOnly: c.httpOnly,
        secure: c.secure,
        sameSite: c.sameSite,
      })),
      origins: r.snapshot.storage.origins.map((o) => ({
        origin: o.origin,
        localStorage: o.localStorage.map((e) => ({ name: e.name, value: e.value })),
      })),
    },
    tabs: r.snapshot.tabs.map((t) => ({
      url: t.url,
      active: t.active,
      ...(t.id === undefined ? {} : { id: t.id }),
      ...(t.sessionStorage === undefined
        ? {}
        : {
            sessionStorage: {
              origin: t.sessionStorage.origin,
              localStorage: t.sessionStorage.localStorage.map((e) => ({ name: e.name, value: e.value })),
            },
          }),
    })),
    takenAt: r.snapshot.takenAt,
    // What a read left out is said in health, never sealed: the next snapshot says it again.
    ...(r.snapshot.indexedDB === undefined
      ? {}
      : {
          indexedDB: r.snapshot.indexedDB.map((o) => ({
            origin: o.origin,
            databases: o.databases.map((d) => ({ name: d.name, version: d.version, data: d.data })),
          })),
        }),
  },
  parkedAt: r.parkedAt,
  ...(r.upstreamProxy === undefined ? {} : { upstreamProxy: r.upstreamProxy }),
  ...(r.files === undefined
    ? {}
    : {
        files: r.files.map((f) => ({
          name: f.name,
          type: f.type,
          at: f.at,
          source: f.source,
          origin: f.origin,
          data: f.data,
        })),
      }),
})

/**
 * What `list` reports per parked errand: its id and when it was parked, read from the file's
 * plaintext header without decrypting the payload.
 *
 * @example
 * const oldest = [...entries].sort((a, b) => a.parkedAt - b.parkedAt)[0]
 */
export interface ParkedEntry {
  readonly errandId: string
  readonly parkedAt: number
}
