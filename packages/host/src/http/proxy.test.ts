/**
 * The upstream proxy at the HTTP edge (issue #21, L7): `X-Browser-Proxy` and
 * `PUT /v1/session/proxy` are checked before any service call; a bad one is a JSON 400 that
 * never quotes the value (it may hold a password); a good one reaches the errand redacted.
 */
import { Effect, Either, Redacted } from 'effect'
import { describeSettings, explainHostConfigError, hostSettingsFrom } from '../config.ts'
import { describe, expect, it } from 'vitest'
import type { Target } from '../browsing/Browsing.ts'
import { testApp } from './testing.ts'

const SECRET = 'http://alice:pw-9f2c@127.0.0.1:3128'
const BAD = [
  'socks5://alice:pw-9f2c@127.0.0.1:1080',
  'pw-9f2c',
  'http://alice:pw-9f2c@127.0.0.1:3128/path',
  'http://alice:pw-9f2c@127.0.0.1:3128/?q=1',
  'x'.repeat(2049),
]

const call = (
  app: ReturnType<typeof testApp>['app'],
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) =>
  app.request(path, {
    method,
    headers: {
      'x-browser-session': 'agent-1',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })

describe('an upstream proxy named over HTTP (issue #21)', () => {
  it(
    'X-Browser-Proxy: a bad one is a 400 without its value and touches nothing; a good one opens the errand with ' +
      'it, redacted',
    async () => {
      const { app, calls } = testApp()
      for (const bad of BAD) {
        const res = await call(app, 'POST', '/v1/navigate', { 'x-browser-proxy': bad }, { url: 'https://example.com/' })
        const text = await res.text()
        expect(res.status, bad).toBe(400)
        expect(JSON.parse(text).error.code).toBe('InvalidUpstreamProxy')
        expect(text).not.toContain('pw-9f2c')
      }
      expect(calls).toEqual([])
      const ok = await call(app, 'POST', '/v1/navigate', { 'x-browser-proxy': SECRET }, { url: 'https://example.com/' })
      expect(ok.status).toBe(200)
      const target = calls[0]!.args[0] as Target & { upstreamProxy?: Redacted.Redacted<string> }
      expect(target._tag === 'session' && Redacted.value(target.upstreamProxy!)).toBe(SECRET)
      expect(JSON.stringify(calls)).not.toContain('pw-9f2c')
    },
  )

  it('PUT /v1/session/proxy: sets, clears with null, refuses bad values with a 400 that names no secret', async () => {
    const { app, calls } = testApp()
    const set = await call(app, 'PUT', '/v1/session/proxy', {}, { url: SECRET })
    expect([set.status, await set.json()]).toEqual([200, { upstreamProxy: 'set' }])
    const cleared = await call(app, 'PUT', '/v1/session/proxy', {}, { url: null })
    expect([cleared.status, await cleared.json()]).toEqual([200, { upstreamProxy: 'none' }])
    expect(calls.map((c) => c.method)).toEqual(['sessionProxy', 'sessionProxy'])
    for (const bad of BAD) {
      const res = await call(app, 'PUT', '/v1/session/proxy', {}, { url: bad })
      const text = await res.text()
      expect(res.status, bad).toBe(400)
      expect(text).not.toContain('pw-9f2c')
    }
    const missing = await call(app, 'PUT', '/v1/session/proxy', {}, {})
    expect(missing.status).toBe(400)
    expect(calls).toHaveLength(2)
  })
})

describe('ERRANDS_UPSTREAM_PROXY (issue #21)', () => {
  it(
    'is decoded once, printed without its credentials, and a bad value stops start-up naming the variable, not the ' +
      'value',
    () => {
      const settings = Effect.runSync(hostSettingsFrom({ ERRANDS_UPSTREAM_PROXY: SECRET }))
      expect(Redacted.value(settings.upstreamProxy!)).toBe(SECRET)
      expect(describeSettings(settings)).toContain('upstream proxy http://127.0.0.1:3128')
      expect(describeSettings(settings)).not.toContain('pw-9f2c')
      for (const bad of BAD) {
        const failed = Effect.runSync(Effect.either(hostSettingsFrom({ ERRANDS_UPSTREAM_PROXY: bad })))
        expect(Either.isLeft(failed), bad).toBe(true)
        const explained = Either.isLeft(failed) ? explainHostConfigError(failed.left) : ''
        expect(explained).toContain('ERRANDS_UPSTREAM_PROXY')
        expect(explained).not.toContain('pw-9f2c')
      }
    },
  )
})
