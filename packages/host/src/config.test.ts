import { maxConnectionsConfig, maxFrameBytesConfig, maxInFlightConfig } from '@errands/devtools'
import { configFrom } from '@errands/supervisor'
import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_LOCALHOST_PORTS,
  describeSettings,
  explainHostConfigError,
  hostSettingsFrom,
  printableSettings,
} from './config.ts'

const decode = (env: Record<string, string>) => Effect.runSync(Effect.either(hostSettingsFrom(env)))
const refused = (env: Record<string, string>) => {
  const result = decode(env)
  if (Either.isRight(result)) throw new Error(`expected ${JSON.stringify(env)} to be refused`)
  return explainHostConfigError(result.left)
}

describe('host configuration (B4)', () => {
  it('takes the defaults when nothing is set', () => {
    const s = Effect.runSync(hostSettingsFrom({}))
    expect(s).toMatchObject({
      port: 7777,
      cdpUrl: undefined,
      pageDeadlineMs: 30_000,
      localhostPorts: DEFAULT_LOCALHOST_PORTS,
    })
    expect(s.supervisor.idleMs).toBe(900_000)
    expect(s.supervisor.parkIdleMs).toBe(3_600_000)
  })

  it.each([
    ['ERRANDS_PORT', '1', (s: { port: number }) => s.port, 1],
    ['ERRANDS_PORT', '65535', (s: { port: number }) => s.port, 65535],
    ['ERRANDS_MAX_SESSIONS', '1', (s: { supervisor: { maxErrands: number } }) => s.supervisor.maxErrands, 1],
    ['ERRANDS_MAX_SESSIONS', '32', (s: { supervisor: { maxErrands: number } }) => s.supervisor.maxErrands, 32],
    ['ERRANDS_SESSION_IDLE_MS', '60000', (s: { supervisor: { idleMs: number } }) => s.supervisor.idleMs, 60_000],
    ['ERRANDS_SESSION_IDLE_MS', '86400000', (s: { supervisor: { idleMs: number } }) => s.supervisor.idleMs, 86_400_000],
  ] as const)('accepts %s=%s (a bound)', (name, value, pick, expected) => {
    expect(pick(Effect.runSync(hostSettingsFrom({ [name]: value })) as never)).toBe(expected)
  })

  it.each([
    ['ERRANDS_PORT', '0', 'must be a whole number from 1 to 65535'],
    ['ERRANDS_PORT', '65536', 'must be a whole number from 1 to 65535'],
    ['ERRANDS_PORT', '80.5', 'must be a whole number from 1 to 65535'],
    ['ERRANDS_PORT', 'http', 'must be a whole number from 1 to 65535'],
    ['ERRANDS_PORT', '', 'must be a whole number from 1 to 65535'],
    ['ERRANDS_MAX_SESSIONS', '0', 'must be a whole number from 1 to 32'],
    ['ERRANDS_MAX_SESSIONS', '33', 'must be a whole number from 1 to 32'],
    ['ERRANDS_SESSION_IDLE_MS', '59999', 'must be a whole number from 60000 to 86400000'],
    ['ERRANDS_SESSION_IDLE_MS', '86400001', 'must be a whole number from 60000 to 86400000'],
    ['ERRANDS_CDP_URL', 'file:///tmp/x', 'DevTools address'],
    ['ERRANDS_CDP_URL', 'not a url', 'DevTools address'],
    ['ERRANDS_LOCALHOST_PORTS', '3000,70000', 'comma-separated list'],
    ['ERRANDS_LOCALHOST_PORTS', ',', 'comma-separated list'],
    ['ERRANDS_INSPECT', 'yes', 'must be on or off'],
    ['ERRANDS_INSPECT', 'ON', 'must be on or off'],
    ['ERRANDS_INSPECT', '', 'must be on or off'],
    ['ERRANDS_INSPECT_PORT', '0', 'must be a whole number from 1 to 65535'],
    ['ERRANDS_INSPECT_PORT', '65536', 'must be a whole number from 1 to 65535'],
  ])('refuses %s=%s, naming the variable and the range — never clamps', (name, value, text) => {
    expect(refused({ [name]: value })).toContain(`${name}: invalid value — `)
    expect(refused({ [name]: value })).toContain(text)
  })

  it(
    'caps an errand files folder: 25 MiB a staged file, 100 MiB a folder by default; out of range stops start-up ' +
      'naming the variable (#25)',
    () => {
      const ok = Effect.runSync(hostSettingsFrom({}))
      expect(ok.files).toEqual({ maxFileBytes: 25 * 1024 * 1024, maxErrandBytes: 100 * 1024 * 1024 })
      expect(
        Effect.runSync(
          hostSettingsFrom({ ERRANDS_FILES_MAX_FILE_BYTES: '1000', ERRANDS_FILES_MAX_ERRAND_BYTES: '3000' }),
        ).files,
      ).toEqual({ maxFileBytes: 1000, maxErrandBytes: 3000 })
      expect(refused({ ERRANDS_FILES_MAX_FILE_BYTES: '0' })).toContain('ERRANDS_FILES_MAX_FILE_BYTES: invalid value')
      expect(refused({ ERRANDS_FILES_MAX_ERRAND_BYTES: 'lots' })).toContain(
        'ERRANDS_FILES_MAX_ERRAND_BYTES: invalid value',
      )
    },
  )

  it(
    "caps an errand's own IndexedDB at 64 MiB by default; `errands config` decodes it with the rest, out of range " +
      'stops start-up naming the variable (E7)',
    () => {
      expect(Effect.runSync(hostSettingsFrom({})).indexedDbMaxBytes).toBe(64 * 1024 * 1024)
      expect(Effect.runSync(hostSettingsFrom({ ERRANDS_INDEXEDDB_MAX_ERRAND_BYTES: '5000' })).indexedDbMaxBytes).toBe(
        5000,
      )
      expect(refused({ ERRANDS_INDEXEDDB_MAX_ERRAND_BYTES: '0' })).toContain(
        'ERRANDS_INDEXEDDB_MAX_ERRAND_BYTES: invalid value — must be a whole number of bytes from 1 to 1073741824',
      )
    },
  )

  it('reports every invalid variable at once', () => {
    expect(
      refused({ ERRANDS_PORT: '0', ERRANDS_MAX_SESSIONS: '33', ERRANDS_SESSION_IDLE_MS: '1' }).split('\n'),
    ).toHaveLength(3)
  })

  it('takes a DevTools address and a port list', () => {
    const s = Effect.runSync(
      hostSettingsFrom({
        ERRANDS_CDP_URL: 'ws://127.0.0.1:9222/devtools/browser/x',
        ERRANDS_LOCALHOST_PORTS: '5173, 3000,3000',
      }),
    )
    expect(s.cdpUrl).toBe('ws://127.0.0.1:9222/devtools/browser/x')
    expect(s.localhostPorts).toEqual([5173, 3000])
  })

  it('the XState inspector is off by default on port 7778; ERRANDS_INSPECT switches it on at start (V3)', () => {
    expect(Effect.runSync(hostSettingsFrom({})).inspector).toEqual({ on: false, port: 7778 })
    for (const on of ['on', 'true', '1'])
      expect(Effect.runSync(hostSettingsFrom({ ERRANDS_INSPECT: on })).inspector.on).toBe(true)
    for (const off of ['off', 'false', '0'])
      expect(Effect.runSync(hostSettingsFrom({ ERRANDS_INSPECT: off })).inspector.on).toBe(false)
    expect(Effect.runSync(hostSettingsFrom({ ERRANDS_INSPECT: 'on', ERRANDS_INSPECT_PORT: '9229' })).inspector).toEqual(
      { on: true, port: 9229 },
    )
  })
})

describe('the DevTools limits are checked at start-up with every other variable (#27, issue #24)', () => {
  const limits = [
    ['ERRANDS_DEVTOOLS_MAX_FRAME_BYTES', 'maxFrameBytes', maxFrameBytesConfig, 1024, 268_435_456, 16 * 1024 * 1024],
    ['ERRANDS_DEVTOOLS_MAX_CONNECTIONS', 'maxConnections', maxConnectionsConfig, 1, 64, 8],
    ['ERRANDS_DEVTOOLS_MAX_IN_FLIGHT', 'maxInFlight', maxInFlightConfig, 1, 4096, 256],
  ] as const

  it.each(limits)(
    '%s: the default, both bounds taken, one past each refused — the same range @errands/devtools reads',
    (name, key, own, min, max, fallback) => {
      expect(Effect.runSync(hostSettingsFrom({})).devtools[key]).toBe(fallback)
      for (const ok of [min, max]) {
        expect(Effect.runSync(hostSettingsFrom({ [name]: String(ok) })).devtools[key]).toBe(ok)
        expect(Effect.runSync(configFrom(own, { [name]: String(ok) }))).toBe(ok)
      }
      for (const bad of [min - 1, max + 1]) {
        expect(refused({ [name]: String(bad) })).toBe(
          `${name}: invalid value — must be a whole number from ${min} to ${max}`,
        )
        expect(Either.isLeft(Effect.runSync(Effect.either(configFrom(own, { [name]: String(bad) }))))).toBe(true)
      }
    },
  )
})

describe('secrets stay out of what the settings print', () => {
  it(
    'the upstream proxy is its scheme, host and port in the JSON and the log line; a bad one is refused without its ' +
      'value',
    () => {
      const s = Effect.runSync(hostSettingsFrom({ ERRANDS_UPSTREAM_PROXY: 'http://me:pr0xypass@proxy.example:3128' }))
      const printed = JSON.stringify(printableSettings(s))
      expect(printed).toContain('"upstreamProxy":"http://proxy.example:3128"')
      expect(printed).not.toContain('pr0xypass')
      expect(describeSettings(s)).not.toContain('pr0xypass')
      expect(refused({ ERRANDS_UPSTREAM_PROXY: 'socks5://me:pr0xypass@proxy.example:1080' })).not.toContain('pr0xypass')
    },
  )

  it("the log line says the store's retention (S2)", () => {
    expect(
      describeSettings(
        Effect.runSync(hostSettingsFrom({ ERRANDS_STORE_MAX_RECORDS: '5', ERRANDS_STORE_MAX_DAYS: '2' })),
      ),
    ).toContain('keeps 5 parked sessions for 2 days')
  })
})
