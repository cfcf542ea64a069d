import { describe, expect, it } from '@effect/vitest'
import fc from 'fast-check'
import { DAY_MS, DEFAULT_RETENTION, toDrop } from './retention.ts'

describe('retention', () => {
  it('defaults to 40 records and 14 days (S2)', () => {
    expect(DEFAULT_RETENTION).toEqual({ maxRecords: 40, maxAgeMs: 14 * DAY_MS })
  })

  it('drops the expired, then the oldest beyond the cap', () => {
    const entries = [
      { errandId: 'new', parkedAt: 20 * DAY_MS },
      { errandId: 'old', parkedAt: 1 * DAY_MS },
      { errandId: 'mid', parkedAt: 10 * DAY_MS },
      { errandId: 'mid2', parkedAt: 12 * DAY_MS },
    ]
    expect(toDrop(entries, 20 * DAY_MS, DEFAULT_RETENTION)).toEqual(['old'])
    expect(toDrop(entries, 20 * DAY_MS, { maxRecords: 2, maxAgeMs: 14 * DAY_MS })).toEqual(['old', 'mid'])
    expect(toDrop(entries, 14 * DAY_MS + DAY_MS, DEFAULT_RETENTION)).toEqual([]) // exactly 14 days is kept
  })

  it('breaks ties by errand id so the choice is deterministic', () => {
    const entries = [
      { errandId: 'b', parkedAt: 0 },
      { errandId: 'a', parkedAt: 0 },
      { errandId: 'c', parkedAt: 0 },
    ]
    expect(toDrop(entries, 0, { maxRecords: 1, maxAgeMs: DAY_MS })).toEqual(['a', 'b'])
  })

  it('keeps exactly the newest min(cap, fresh) records (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ errandId: fc.string({ minLength: 1 }), parkedAt: fc.nat(30 * DAY_MS) }), {
          selector: (e) => e.errandId,
        }),
        fc.integer({ min: 1, max: 50 }),
        fc.nat(40 * DAY_MS),
        (entries, maxRecords, now) => {
          const policy = { maxRecords, maxAgeMs: 14 * DAY_MS }
          const dropped = new Set(toDrop(entries, now, policy))
          const kept = entries.filter((e) => !dropped.has(e.errandId))
          const fresh = entries.filter((e) => now - e.parkedAt <= policy.maxAgeMs)
          expect(kept.length).toBe(Math.min(maxRecords, fresh.length))
          expect(kept.every((e) => now - e.parkedAt <= policy.maxAgeMs)).toBe(true)
          const oldestKept = Math.min(...kept.map((e) => e.parkedAt))
          // Nothing fresh that was dropped is newer than something kept.
          expect(fresh.filter((e) => dropped.has(e.errandId)).every((e) => e.parkedAt <= oldestKept)).toBe(true)
        },
      ),
    )
  })
})
