import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { DEFAULT_LOCALHOST_PORTS, explainHostConfigError, hostSettingsFrom } from './config.ts'

const decode = (env: Record<string, string>) => Effect.runSync(Effect.either(hostSettingsFrom(env)))
const refused = (env: Record<string, string>) => {
  const result = decode(env)
  if (Either.isRight(result)) throw new Error(`expected ${JSON.stringify(env)} to be refused`)
  return explainHostConfigError(result.left)
}

describe('host configuration (B4)', () => {
  it('takes the defaults when nothing is set', () => {
    const s = Effect.runSync(hostSettingsFrom({}))
    expect(s).toMatchObject({ port: 7777, cdpUrl: undefined, pageDeadlineMs: 30_000, localhostPorts: DEFAULT_LOCALHOST_PORTS })
    expect(s.supervisor.idleMs).toBe(900_000)
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

  it('reports every invalid variable at once', () => {
    expect(refused({ ERRANDS_PORT: '0', ERRANDS_MAX_SESSIONS: '33', ERRANDS_SESSION_IDLE_MS: '1' }).split('\n')).toHaveLength(3)
  })

  it('takes a DevTools address and a port list', () => {
    const s = Effect.runSync(hostSettingsFrom({ ERRANDS_CDP_URL: 'ws://127.0.0.1:9222/devtools/browser/x', ERRANDS_LOCALHOST_PORTS: '5173, 3000,3000' }))
    expect(s.cdpUrl).toBe('ws://127.0.0.1:9222/devtools/browser/x')
    expect(s.localhostPorts).toEqual([5173, 3000])
  })

  it('the XState inspector is off by default on port 7778; ERRANDS_INSPECT switches it on at start (V3)', () => {
    expect(Effect.runSync(hostSettingsFrom({})).inspector).toEqual({ on: false, port: 7778 })
    for (const on of ['on', 'true', '1']) expect(Effect.runSync(hostSettingsFrom({ ERRANDS_INSPECT: on })).inspector.on).toBe(true)
    for (const off of ['off', 'false', '0']) expect(Effect.runSync(hostSettingsFrom({ ERRANDS_INSPECT: off })).inspector.on).toBe(false)
    expect(Effect.runSync(hostSettingsFrom({ ERRANDS_INSPECT: 'on', ERRANDS_INSPECT_PORT: '9229' })).inspector).toEqual({ on: true, port: 9229 })
  })
})
