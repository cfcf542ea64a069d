import type { ParkedEntry } from './record.ts'

/**
 * How many parked errands are kept and for how long (S2).
 *
 * @example
 * const policy: Retention = { maxRecords: 40, maxAgeMs: 14 * DAY_MS }
 */
export interface Retention {
  /** At most this many records; the oldest beyond it are dropped. */
  readonly maxRecords: number
  /** A record parked longer ago than this (by its `parkedAt`) is dropped. */
  readonly maxAgeMs: number
}

/**
 * One day in milliseconds.
 *
 * @example
 * SealedStore.layer({ dir, maxAgeMs: 7 * DAY_MS })
 */
export const DAY_MS = 24 * 60 * 60 * 1000

/**
 * The defaults of S2: 40 records, 14 days.
 *
 * @example
 * SealedStore.layer({ dir, ...DEFAULT_RETENTION, maxRecords: 10 })
 */
export const DEFAULT_RETENTION: Retention = { maxRecords: 40, maxAgeMs: 14 * DAY_MS }

/**
 * Orders entries oldest first; equal times fall back to the errand id so the choice is
 * deterministic.
 *
 * @example
 * [...entries].sort(byAge)
 */
export const byAge = (a: ParkedEntry, b: ParkedEntry): number =>
  a.parkedAt - b.parkedAt || (a.errandId < b.errandId ? -1 : a.errandId > b.errandId ? 1 : 0)

/**
 * Which errands retention drops at `now`: every one older than `maxAgeMs`, then the oldest of
 * the rest until at most `maxRecords` remain. Pure; the caller removes them.
 *
 * @example
 * toDrop([{ errandId: 'a', parkedAt: 0 }], 15 * DAY_MS, DEFAULT_RETENTION) // ['a']
 */
export const toDrop = (entries: ReadonlyArray<ParkedEntry>, now: number, policy: Retention): ReadonlyArray<string> => {
  const sorted = [...entries].sort(byAge)
  const expired = sorted.filter((e) => now - e.parkedAt > policy.maxAgeMs)
  const fresh = sorted.filter((e) => now - e.parkedAt <= policy.maxAgeMs)
  const overflow = fresh.slice(0, Math.max(0, fresh.length - policy.maxRecords))
  return [...expired, ...overflow].map((e) => e.errandId)
}
