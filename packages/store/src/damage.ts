import { Effect, Option } from 'effect'
import { expect } from 'vitest'
import type { UnreadableReason } from './errors.ts'
import type { SealedStoreShape } from './shape.ts'

/*
 * Test support only, for the damage tests of both stores (tamper.test.ts here, for files, and
 * test/store-pg/tamper.test.ts, for rows): a store holds 'before', 'after' and a 'victim' whose
 * sealed bytes the test damages.
 */

/**
 * The others read fine and are listed; the victim fails with one of `reasons`, and is either
 * listed or reported by `problems()` under `victimKey` (its file name or row key).
 *
 * @example
 * yield* expectOnlyVictim(store, ['tampered'], 'byte 40', fileNameFor('victim'))
 */
export const expectOnlyVictim = (
  store: SealedStoreShape,
  reasons: ReadonlyArray<UnreadableReason>,
  where: string,
  victimKey: string,
) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(store.get('victim'))
    expect(error._tag, where).toBe('RecordUnreadable')
    if (error._tag !== 'RecordUnreadable') return
    expect(error.errandId, where).toBe('victim')
    expect(reasons, `${where}: got ${error.reason}`).toContain(error.reason)
    for (const id of ['before', 'after']) {
      expect(
        Option.map(yield* store.get(id), (r) => r.conversationId),
        where,
      ).toEqual(Option.some(`conv-${id}`))
    }
    // list() never fails over a damaged record; the victim is either listed or in problems().
    const listed = (yield* store.list()).map((e) => e.errandId)
    expect(
      listed.filter((id) => id !== 'victim'),
      where,
    ).toEqual(['after', 'before'])
    const problems = yield* store.problems()
    expect(listed.includes('victim') || problems.some((p) => p.file === victimKey), where).toBe(true)
  })

/**
 * The reason a change at `offset` of sealed bytes must give, by field (docs/sealed-store.md,
 * "Reading a file").
 *
 * @example
 * expectedAt(4, 6) // ['unknown-version']
 */
export const expectedAt = (offset: number, idBytes: number): ReadonlyArray<UnreadableReason> => {
  if (offset < 4) return ['malformed'] // magic
  if (offset === 4) return ['unknown-version']
  if (offset < 13) return ['foreign-key'] // key id
  if (offset < 21) return ['tampered', 'malformed'] // parkedAt: authenticated; above 2^53 it is malformed
  if (offset < 27) return ['truncated', 'malformed'] // payload and id lengths no longer match the file
  if (offset < 27 + idBytes) return ['tampered', 'malformed'] // id: another errand's, or not UTF-8
  return ['tampered'] // nonce, ciphertext, tag
}
