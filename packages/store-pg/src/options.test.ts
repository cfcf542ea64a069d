import { describe, expect, it } from '@effect/vitest'
import { DAY_MS, DEFAULT_RETENTION } from '@errands/store'
import { Either, Redacted } from 'effect'
import { DEFAULT_TABLE, decodePgOptions } from './options.ts'

const key = Redacted.make(new Uint8Array(32))

describe('decodePgOptions', () => {
  it("fills the file store's defaults: 40 records, 14 days, the default table, no prune fiber", () => {
    expect(decodePgOptions({ key })).toEqual(
      Either.right({ table: DEFAULT_TABLE, retention: DEFAULT_RETENTION, pruneIntervalMs: undefined }),
    )
  })

  it("takes the file store's ranges and messages for retention and the prune interval", () => {
    const ok = decodePgOptions({
      key,
      table: 'fleet_1',
      maxRecords: 500,
      maxAgeMs: 7 * DAY_MS,
      pruneIntervalMs: 60_000,
    })
    expect(ok).toEqual(
      Either.right({ table: 'fleet_1', retention: { maxRecords: 500, maxAgeMs: 7 * DAY_MS }, pruneIntervalMs: 60_000 }),
    )
    for (const [bad, named] of [
      [{ maxRecords: 0 }, 'maxRecords'],
      [{ maxAgeMs: 0.5 }, 'maxAgeMs'],
      [{ pruneIntervalMs: 10 }, 'pruneIntervalMs'],
    ] as const) {
      const decoded = decodePgOptions({ key, ...bad })
      expect(Either.isLeft(decoded) && decoded.left.reason, named).toBe('invalid-options')
      expect(Either.isLeft(decoded) && decoded.left.message, named).toContain(named)
    }
  })

  it('accepts only table names that need no quoting', () => {
    for (const table of ['a', '_x', 'errands_2', 'x'.repeat(63)])
      expect(Either.isRight(decodePgOptions({ key, table })), table).toBe(true)
    for (const table of ['', '2x', 'Upper', 'a-b', 'a b', 'x; DROP TABLE y', '"q"', 'x'.repeat(64)]) {
      const decoded = decodePgOptions({ key, table })
      expect(Either.isLeft(decoded) && decoded.left.message, table).toContain('table')
    }
  })
})
