import { Schema } from 'effect'

/**
 * The store could not do its I/O (S4). `reason` says what a person can do about it:
 * `disk-full` (free some space), `permission` (fix the store directory's owner or mode) or `io`
 * (anything else). The message names the operation, never a key or a record's contents.
 *
 * A failed write leaves the previous file in place: the caller still holds its data and the
 * store still holds the old state.
 *
 * @example
 * store.put(record).pipe(
 *   Effect.catchTag('StoreError', (e) =>
 *     e.reason === 'disk-full' ? Effect.logWarning('parking skipped: disk full') : Effect.fail(e)),
 * )
 */
export class StoreError extends Schema.TaggedError<StoreError>()('StoreError', {
  reason: Schema.Literal('io', 'disk-full', 'permission'),
  message: Schema.String,
}) {}

/**
 * Why one sealed record cannot be read (see docs/sealed-store.md, "Reading a file").
 *
 * @example
 * Schema.is(UnreadableReason)('truncated') // true
 */
export const UnreadableReason = Schema.Literal(
  'tampered',
  'truncated',
  'foreign-key',
  'unknown-version',
  'malformed',
  'missing',
)

/**
 * The reasons a sealed file is unreadable.
 *
 * @example
 * const reason: UnreadableReason = 'foreign-key'
 */
export type UnreadableReason = typeof UnreadableReason.Type

/**
 * One parked errand's sealed file cannot be read (S4): it was changed (`tampered`), cut short
 * (`truncated`), sealed under another device key (`foreign-key`), written by a newer format
 * (`unknown-version`), decrypts to something that is not a parked record (`malformed`), or is gone
 * when the supervisor resumes it (`missing`: dropped by retention, or removed).
 * Only that errand is affected; the caller removes it and carries on.
 *
 * @example
 * store.get(id).pipe(
 *   Effect.catchTag('RecordUnreadable', (e) =>
 *     store.remove(e.errandId).pipe(Effect.as(Option.none()))),
 * )
 */
export class RecordUnreadable extends Schema.TaggedError<RecordUnreadable>()('RecordUnreadable', {
  reason: UnreadableReason,
  errandId: Schema.String,
  message: Schema.String,
}) {}

/**
 * The store's options or key are not usable, found when the layer is built (STYLE §9): the
 * embedder's key is not 32 bytes (`invalid-key`) or an option is out of range
 * (`invalid-options`, the message names the option and its range).
 *
 * @example
 * SealedStore.layer({ dir, maxRecords: 0 }) // fails building with StoreConfigError('invalid-options')
 */
export class StoreConfigError extends Schema.TaggedError<StoreConfigError>()('StoreConfigError', {
  reason: Schema.Literal('invalid-key', 'invalid-options'),
  message: Schema.String,
}) {}
