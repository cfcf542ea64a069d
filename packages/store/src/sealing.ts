import { Effect, Either, Option } from 'effect'
import { RecordUnreadable, type UnreadableReason } from './errors.ts'
import { seal, unseal, type DeviceKey } from './format.ts'
import { recordFromBytes, recordToBytes, type ParkedRecord } from './record.ts'

/*
 * Sealing and opening one parked record, shared by every store that keeps the sealed bytes
 * (the file store's files, the Postgres store's rows): the same format, AAD and checks.
 */

const describe: Record<UnreadableReason, string> = {
  tampered: 'its sealed record was changed or moved',
  truncated: 'its sealed record was cut short',
  'foreign-key': 'it was sealed under another device key',
  'unknown-version': 'it was written by a newer version of the store',
  malformed: 'its sealed record is not a parked errand',
  missing: 'its sealed record is gone (dropped by retention, or removed)',
}

/**
 * The typed error for one errand's unreadable record. The message names the errand and the
 * reason only.
 *
 * @example
 * unreadable('e1', 'tampered').message
 */
export const unreadable = (errandId: string, reason: UnreadableReason): RecordUnreadable =>
  new RecordUnreadable({
    reason,
    errandId,
    message:
      `The parked session of errand ${JSON.stringify(errandId)} cannot be resumed: ${describe[reason]} ` +
      `(${reason}). Remove it and start the errand afresh.`,
  })

/**
 * Opens the sealed bytes that must hold `errandId`'s record: unseals them (format, key id, AAD,
 * tag), decodes the record and checks it against the authenticated header.
 *
 * @example
 * const record = yield* openRecord(key, 'e1', bytes)
 */
export const openRecord = (
  key: DeviceKey,
  errandId: string,
  bytes: Uint8Array,
): Effect.Effect<ParkedRecord, RecordUnreadable> =>
  Either.match(unseal(key, errandId, bytes), {
    onLeft: (reason) => Effect.fail(unreadable(errandId, reason)),
    onRight: ({ header, plaintext }) =>
      Either.match(recordFromBytes(plaintext), {
        onLeft: (reason) => Effect.fail(unreadable(errandId, reason)),
        // Only a key holder can make these differ; the header is what list and retention trust.
        onRight: (record) =>
          record.errandId === errandId && record.parkedAt === header.parkedAt
            ? Effect.succeed(record)
            : Effect.fail(unreadable(errandId, 'tampered')),
      }),
  })

/**
 * Seals a record: its sealed bytes and the record as it will read back (the schema's fields
 * only). A record that breaks the schema is a caller bug: a defect naming the failing paths,
 * never the values.
 *
 * @example
 * const { bytes, stored } = yield* sealRecord(key, record)
 */
export const sealRecord = (
  key: DeviceKey,
  record: ParkedRecord,
): Effect.Effect<{ readonly bytes: Uint8Array; readonly stored: ParkedRecord }> =>
  Either.match(recordToBytes(record), {
    onLeft: (problem) => Effect.dieMessage(`SealedStore: ${problem}`),
    onRight: (plaintext) =>
      Effect.sync(() => ({
        bytes: seal(key, record.errandId, record.parkedAt, plaintext),
        stored: Either.getOrThrow(recordFromBytes(plaintext)),
      })),
  })

/**
 * The second half of `update` in every store: given what the store found for `errandId`,
 * applies `f` and writes the result, or says `None`. `f` changing the errand id is a defect
 * (nothing is written).
 *
 * @example
 * get(errandId).pipe(Effect.flatMap(applyUpdate(errandId, f, write)))
 */
export const applyUpdate =
  <E, R>(
    errandId: string,
    f: (record: ParkedRecord) => ParkedRecord,
    write: (record: ParkedRecord) => Effect.Effect<ParkedRecord, E, R>,
  ) =>
  (found: Option.Option<ParkedRecord>): Effect.Effect<Option.Option<ParkedRecord>, E, R> =>
    Option.match(found, {
      onNone: () => Effect.succeed(Option.none()),
      onSome: (record) =>
        Effect.flatMap(
          Effect.sync(() => f(record)),
          (next) =>
            next.errandId === errandId
              ? Effect.map(write(next), Option.some)
              : Effect.dieMessage('SealedStore.update: the function changed the errand id'),
        ),
    })
