import { Clock, Effect, Either, Option } from 'effect'
import type { StoreConfigError } from './errors.ts'
import { recordFromBytes, recordToBytes, type ParkedRecord } from './record.ts'
import { byAge, DEFAULT_RETENTION, toDrop, type Retention } from './retention.ts'
import { decodeRetention, type SealedStoreShape } from './shape.ts'

interface Stored {
  readonly parkedAt: number
  /** The record's JSON bytes: every read decodes a fresh copy, so no caller shares an object. */
  readonly bytes: Uint8Array
}

/**
 * An in-memory sealed store with the disk store's semantics (validation, copies, retention by
 * the Effect `Clock`, idempotent remove) but no encryption and no files: for the supervisor's
 * unit tests. `problems()` is always empty.
 *
 * @example
 * const store = yield* makeMemory({ maxRecords: 3 })
 */
export const makeMemory = (options: Partial<Retention> = {}): Effect.Effect<SealedStoreShape, StoreConfigError> =>
  Effect.map(decodeRetention({ ...DEFAULT_RETENTION, ...options }), (retention) => {
    const records = new Map<string, Stored>()

    const read = (stored: Stored): ParkedRecord => Either.getOrThrow(recordFromBytes(stored.bytes))

    const write = (record: ParkedRecord): Effect.Effect<ParkedRecord> =>
      Either.match(recordToBytes(record), {
        onLeft: (problem) => Effect.dieMessage(`SealedStore: ${problem}`),
        onRight: (bytes) =>
          Effect.sync(() => {
            const stored = { parkedAt: record.parkedAt, bytes }
            records.set(record.errandId, stored)
            return read(stored)
          }),
      })

    const entries = () => [...records].map(([errandId, s]) => ({ errandId, parkedAt: s.parkedAt })).sort(byAge)

    const prune = Effect.map(Clock.currentTimeMillis, (now) => {
      const dropped = toDrop(entries(), now, retention)
      for (const id of dropped) records.delete(id)
      return dropped
    })

    return {
      dir: undefined,
      isProtectedPath: () => false,
      put: (record) => write(record).pipe(Effect.andThen(prune), Effect.asVoid),
      get: (errandId) => Effect.sync(() => Option.map(Option.fromNullable(records.get(errandId)), read)),
      remove: (errandId) => Effect.sync(() => void records.delete(errandId)),
      list: () => Effect.sync(entries),
      problems: () => Effect.succeed([]),
      discard: () => Effect.void,
      update: (errandId, f) =>
        Effect.suspend(() => {
          const stored = records.get(errandId)
          if (stored === undefined) return Effect.succeed(Option.none())
          const next = f(read(stored))
          return next.errandId === errandId
            ? Effect.map(write(next), Option.some)
            : Effect.dieMessage('SealedStore.update: the function changed the errand id')
        }),
      clear: () => Effect.sync(() => records.clear()),
      prune: () => prune,
    } satisfies SealedStoreShape
  })
