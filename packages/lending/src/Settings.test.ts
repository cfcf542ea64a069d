import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { it } from '@effect/vitest'
import { Effect, Either } from 'effect'
import { afterEach, describe, expect } from 'vitest'
import { decodeSettings, isSite, parseSite, Settings } from './Settings.ts'
import { settingsPath } from './settingsFile.ts'

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'errands-settings-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('Settings', () => {
  it.effect('in memory: defaults, always-allowed sites as sites, trust modes', () =>
    Effect.gen(function* () {
      const settings = yield* Settings
      expect(yield* settings.get).toEqual({ version: 1, alwaysAllowed: [], trust: 'ask' })
      yield* settings.allowAlways('www.Shop.example')
      yield* settings.allowAlways('.shop.example')
      yield* settings.allowAlways('alice.github.io')
      expect((yield* settings.get).alwaysAllowed).toEqual(['alice.github.io', 'shop.example'])
      yield* settings.removeAlways('a.shop.example')
      yield* settings.removeAlways('a.shop.example') // idempotent
      expect((yield* settings.get).alwaysAllowed).toEqual(['alice.github.io'])
      expect((yield* settings.setTrust('full')).trust).toBe('full')
      const bad = yield* Effect.either(settings.allowAlways('https://shop.example/'))
      expect(Either.isLeft(bad) && bad.left.reason).toBe('invalid-site')
    }).pipe(Effect.provide(Settings.layerMemory())),
  )

  it.effect('decodes hosts in initial settings to sites', () =>
    Effect.gen(function* () {
      const s = yield* (yield* Settings).get
      expect(s.alwaysAllowed).toEqual(['bob.github.io', 'shop.example'])
      expect(s.trust).toBe('auto')
    }).pipe(
      Effect.provide(
        Settings.layerMemory({ alwaysAllowed: ['a.shop.example', 'shop.example', 'bob.github.io'], trust: 'auto' }),
      ),
    ),
  )

  it.effect('in a file: missing means defaults; changes are written and read back', () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const first = yield* Settings.make(dir)
      expect(yield* first.get).toEqual({ version: 1, alwaysAllowed: [], trust: 'ask' })
      yield* first.allowAlways('a.shop.example')
      yield* first.setTrust('auto')
      expect(JSON.parse(readFileSync(settingsPath(dir), 'utf8'))).toEqual({
        version: 1,
        alwaysAllowed: ['shop.example'],
        trust: 'auto',
      })
      const second = yield* Settings.make(dir)
      expect(yield* second.get).toEqual({ version: 1, alwaysAllowed: ['shop.example'], trust: 'auto' })
      expect(readdirSync(dir)).toEqual(['settings.json'])
    }),
  )

  it.effect('an invalid file is a typed error naming the file and the field', () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeFileSync(settingsPath(dir), JSON.stringify({ alwaysAllowed: ['shop.example', 'http://x/'], trust: 'yolo' }))
      const bad = yield* Effect.either(Settings.make(dir))
      expect(Either.isLeft(bad) && bad.left.reason).toBe('invalid-file')
      const message = Either.isLeft(bad) ? bad.left.message : ''
      expect(message).toContain(settingsPath(dir))
      expect(message).toContain('trust')
      expect(message).toContain('alwaysAllowed.1')
      writeFileSync(settingsPath(dir), '{ not json')
      const notJson = yield* Effect.either(Settings.make(dir))
      expect(Either.isLeft(notJson) && notJson.left.reason).toBe('invalid-file')
    }),
  )

  it.effect('removes temp files a killed write left, keeping the last complete file', () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeFileSync(settingsPath(dir), JSON.stringify({ alwaysAllowed: ['shop.example'] }))
      writeFileSync(join(dir, 'settings.json.abc123.tmp'), '{"alwaysAllowed": ["half')
      const s = yield* Settings.make(dir)
      expect((yield* s.get).alwaysAllowed).toEqual(['shop.example'])
      expect(readdirSync(dir)).toEqual(['settings.json'])
    }),
  )

  it.effect('a write that fails leaves the previous settings in force', () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const s = yield* Settings.make(join(dir, 'data'))
      yield* s.allowAlways('shop.example')
      // The data directory becomes a file: the next write cannot create its temp file.
      rmSync(join(dir, 'data'), { recursive: true })
      writeFileSync(join(dir, 'data'), 'not a directory')
      const failed = yield* Effect.either(s.allowAlways('other.example'))
      expect(Either.isLeft(failed) && failed.left.reason).toBe('io')
      expect((yield* s.get).alwaysAllowed).toEqual(['shop.example'])
    }),
  )

  it('parses sites and decodes settings', () => {
    expect(Effect.runSync(parseSite('WWW.Shop.Example'))).toBe('shop.example')
    expect(isSite('shop.example')).toBe(true)
    expect(isSite('www.shop.example')).toBe(false)
    expect(isSite('')).toBe(false)
    expect(Effect.runSync(decodeSettings({}))).toEqual({ version: 1, alwaysAllowed: [], trust: 'ask' })
    expect(Either.isLeft(Effect.runSync(Effect.either(decodeSettings({ version: 2 }))))).toBe(true)
  })
})
