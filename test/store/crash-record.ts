import { sampleRecord, SECRETS } from '../../packages/store/src/fixtures.ts'
import type { ParkedRecord } from '../../packages/store/src/index.ts'

/*
 * The record the crash writer alternates between: version n is "A" when even, "B" when odd, and
 * the two differ in size (A carries ~64 KB of localStorage, B ~4 KB), so a torn or mixed write
 * could not pass `versionOf`.
 */

/** The errand the crash writer parks over and over. */
export const CRASH_ERRAND = 'crash-victim'

/**
 * Version `n` of the crash record, parked at `now`.
 *
 * @example
 * recordFor(7, Date.now()).snapshot.tabs[0]?.url // '…&v=B-7'
 */
export const recordFor = (n: number, now: number): ParkedRecord => {
  const tag = `${n % 2 === 0 ? 'A' : 'B'}-${n}`
  const base = sampleRecord(CRASH_ERRAND, now, tag)
  const padding = (n % 2 === 0 ? 'a' : 'b').repeat(n % 2 === 0 ? 64 * 1024 : 4 * 1024)
  return {
    ...base,
    snapshot: {
      ...base.snapshot,
      storage: {
        ...base.snapshot.storage,
        origins: [
          ...base.snapshot.storage.origins,
          { origin: 'https://pad.example', localStorage: [{ name: 'pad', value: padding }] },
        ],
      },
    },
  }
}

/**
 * The version a read-back record holds, after checking every field agrees with it; `undefined`
 * when the record is not one whole version.
 *
 * @example
 * versionOf(recordFor(3, 0)) // 3
 */
export const versionOf = (record: ParkedRecord): number | undefined => {
  const match = /^(A|B)-(\d+)$/.exec(record.snapshot.storage.cookies[1]?.value.replace(/^plain-/, '') ?? '')
  if (match === null) return undefined
  const n = Number(match[2])
  const expected = recordFor(n, record.parkedAt)
  return JSON.stringify(expected) === JSON.stringify(record) &&
    (n % 2 === 0) === (match[1] === 'A') &&
    record.snapshot.storage.cookies[0]?.value === `${SECRETS.cookie}-${match[1]}-${n}`
    ? n
    : undefined
}
