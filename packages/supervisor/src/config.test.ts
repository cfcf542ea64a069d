import { DAY_MS, DEFAULT_RETENTION } from '@errands/store'
import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import {
  configFrom,
  defaultSettings,
  errandLimit,
  explainConfigError,
  retentionConfig,
  settingsFrom,
} from './config.ts'

const GiB = 1024 ** 3
const decode = (env: Record<string, string>) => Effect.runSync(Effect.either(settingsFrom(env)))
const explained = (env: Record<string, string>) => {
  const result = decode(env)
  if (Either.isRight(result)) throw new Error(`expected ${JSON.stringify(env)} to be refused`)
  return explainConfigError(result.left)
}

describe('errandLimit (C1)', () => {
  it('is about one context per 2 GB, clamped to 2..6', () => {
    expect([1, 2, 4, 5.9, 6, 8, 12, 24, 64].map((g) => errandLimit(g * GiB))).toEqual([2, 2, 2, 2, 3, 4, 6, 6, 6])
    expect(errandLimit(64 * GiB, { min: 1, max: 10 })).toBe(10)
  })
})

describe('configuration from ERRANDS_* variables', () => {
  it('takes defaults when unset', () => {
    const s = Effect.runSync(settingsFrom({}))
    expect(s).toMatchObject({ maxErrands: errandLimit(), idleMs: 900_000, snapshotDebounceMs: 3_000 })
    expect(s.sweepEveryMs).toBe(60_000)
    expect(s.dataDir).toMatch(/errands$/)
  })

  it.each([
    ['ERRANDS_MAX_SESSIONS', '1', 'maxErrands', 1],
    ['ERRANDS_MAX_SESSIONS', '32', 'maxErrands', 32],
    ['ERRANDS_SESSION_IDLE_MS', '60000', 'idleMs', 60_000],
    ['ERRANDS_SESSION_IDLE_MS', '86400000', 'idleMs', 86_400_000],
    ['ERRANDS_SNAPSHOT_DEBOUNCE_MS', '100', 'snapshotDebounceMs', 100],
    ['ERRANDS_SNAPSHOT_DEBOUNCE_MS', '60000', 'snapshotDebounceMs', 60_000],
  ] as const)('accepts %s=%s (a bound)', (name, value, key, expected) => {
    expect(Effect.runSync(settingsFrom({ [name]: value }))[key]).toBe(expected)
  })

  it.each([
    ['ERRANDS_MAX_SESSIONS', '0', '1 to 32'],
    ['ERRANDS_MAX_SESSIONS', '33', '1 to 32'],
    ['ERRANDS_MAX_SESSIONS', '2.5', '1 to 32'],
    ['ERRANDS_MAX_SESSIONS', 'many', '1 to 32'],
    ['ERRANDS_MAX_SESSIONS', '', '1 to 32'],
    ['ERRANDS_SESSION_IDLE_MS', '59999', '60000 to 86400000'],
    ['ERRANDS_SESSION_IDLE_MS', '86400001', '60000 to 86400000'],
    ['ERRANDS_SNAPSHOT_DEBOUNCE_MS', '99', '100 to 60000'],
    ['ERRANDS_SNAPSHOT_DEBOUNCE_MS', '60001', '100 to 60000'],
    ['ERRANDS_STORE_MAX_RECORDS', '0', '1 to 100000'],
    ['ERRANDS_STORE_MAX_RECORDS', '100001', '1 to 100000'],
    ['ERRANDS_STORE_MAX_RECORDS', '39.5', '1 to 100000'],
    ['ERRANDS_STORE_MAX_RECORDS', 'forty', '1 to 100000'],
    ['ERRANDS_STORE_MAX_DAYS', '0', '1 to 3650'],
    ['ERRANDS_STORE_MAX_DAYS', '3651', '1 to 3650'],
    ['ERRANDS_STORE_MAX_DAYS', '', '1 to 3650'],
  ])('refuses %s=%s, naming the variable and the range — never clamps', (name, value, range) => {
    expect(explained({ [name]: value })).toBe(`${name}: invalid value — must be a whole number from ${range}`)
  })

  it('takes the second idle (C4) from ERRANDS_SESSION_PARK_IDLE_MS; unset, the default or a longer first', () => {
    expect(Effect.runSync(settingsFrom({})).parkIdleMs).toBe(3_600_000)
    expect(Effect.runSync(settingsFrom({ ERRANDS_SESSION_IDLE_MS: '86400000' })).parkIdleMs).toBe(86_400_000)
    expect(Effect.runSync(settingsFrom({ ERRANDS_SESSION_PARK_IDLE_MS: '604800000' })).parkIdleMs).toBe(604_800_000)
    const both = { ERRANDS_SESSION_IDLE_MS: '60000', ERRANDS_SESSION_PARK_IDLE_MS: '60000' }
    expect(Effect.runSync(settingsFrom(both)).parkIdleMs).toBe(60_000)
  })

  it.each([
    [{ ERRANDS_SESSION_PARK_IDLE_MS: '59999' }, 'must be a whole number from 60000 to 604800000'],
    [{ ERRANDS_SESSION_PARK_IDLE_MS: '604800001' }, 'must be a whole number from 60000 to 604800000'],
    [{ ERRANDS_SESSION_PARK_IDLE_MS: 'soon' }, 'must be a whole number from 60000 to 604800000'],
    [
      { ERRANDS_SESSION_IDLE_MS: '120000', ERRANDS_SESSION_PARK_IDLE_MS: '60000' },
      'must be at least ' + 'ERRANDS_SESSION_IDLE_MS (120000)',
    ],
  ])('refuses the second idle %o, saying why', (env, why) => {
    expect(explained(env)).toBe(`ERRANDS_SESSION_PARK_IDLE_MS: invalid value — ${why}`)
  })

  it('reports every invalid variable at once', () => {
    const text = explained({ ERRANDS_MAX_SESSIONS: '0', ERRANDS_SESSION_IDLE_MS: '5' })
    expect(text.split('\n')).toHaveLength(2)
  })

  it('derives the sweep interval from the idle limit', () => {
    expect(Effect.runSync(settingsFrom({ ERRANDS_SESSION_IDLE_MS: '60000' })).sweepEveryMs).toBe(15_000)
  })
})

describe('store retention from ERRANDS_STORE_MAX_RECORDS and ERRANDS_STORE_MAX_DAYS (S2)', () => {
  it('defaults to 40 records and 14 days, in the settings and in code', () => {
    expect(Effect.runSync(settingsFrom({})).retention).toEqual({ maxRecords: 40, maxAgeMs: 14 * DAY_MS })
    expect(Effect.runSync(settingsFrom({})).retention).toEqual(DEFAULT_RETENTION)
    expect(defaultSettings().retention).toEqual(DEFAULT_RETENTION)
  })

  it.each([
    ['ERRANDS_STORE_MAX_RECORDS', '1', { maxRecords: 1, maxAgeMs: 14 * DAY_MS }],
    ['ERRANDS_STORE_MAX_RECORDS', '100000', { maxRecords: 100_000, maxAgeMs: 14 * DAY_MS }],
    ['ERRANDS_STORE_MAX_DAYS', '1', { maxRecords: 40, maxAgeMs: DAY_MS }],
    ['ERRANDS_STORE_MAX_DAYS', '3650', { maxRecords: 40, maxAgeMs: 3650 * DAY_MS }],
  ])('accepts %s=%s (a bound)', (name, value, retention) => {
    expect(Effect.runSync(settingsFrom({ [name]: value })).retention).toEqual(retention)
    expect(Effect.runSync(configFrom(retentionConfig, { [name]: value }))).toEqual(retention)
  })

  it("reports every invalid variable at once, the store's with the supervisor's", () => {
    expect(
      explained({ ERRANDS_MAX_SESSIONS: '0', ERRANDS_STORE_MAX_RECORDS: '0', ERRANDS_STORE_MAX_DAYS: '9999' }).split(
        '\n',
      ),
    ).toEqual([
      'ERRANDS_MAX_SESSIONS: invalid value — must be a whole number from 1 to 32',
      'ERRANDS_STORE_MAX_RECORDS: invalid value — must be a whole number from 1 to 100000',
      'ERRANDS_STORE_MAX_DAYS: invalid value — must be a whole number from 1 to 3650',
    ])
  })
})
