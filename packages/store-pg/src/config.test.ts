import { describe, expect, it } from '@effect/vitest'
import { ConfigProvider, Effect, Either, Option, Redacted } from 'effect'
import { databaseUrlConfig, describeDatabase } from './config.ts'

const decode = (env: Record<string, string>) =>
  Effect.withConfigProvider(Effect.either(databaseUrlConfig), ConfigProvider.fromMap(new Map(Object.entries(env))))

describe('ERRANDS_DATABASE_URL', () => {
  it.effect('unset is None: the file store stays', () =>
    Effect.gen(function* () {
      expect(yield* decode({})).toEqual(Either.right(Option.none()))
    }))

  it.effect('a Postgres URL decodes redacted: printing it shows no password', () =>
    Effect.gen(function* () {
      const url = 'postgresql://errands:s3cret-pw@db.internal:6543/errands'
      const decoded = yield* decode({ ERRANDS_DATABASE_URL: url })
      const value = Either.getOrThrow(decoded).pipe(Option.getOrThrow)
      expect(Redacted.value(value)).toBe(url)
      expect(String(value)).not.toContain('s3cret')
      expect(JSON.stringify({ value })).not.toContain('s3cret')
      expect(describeDatabase(value)).toBe('Postgres at db.internal:6543/errands')
    }))

  it.effect('anything else fails naming the variable, without repeating the value', () =>
    Effect.gen(function* () {
      for (const bad of ['mysql://u:s3cret-pw@h/db', 'not a url s3cret-pw', '']) {
        const decoded = yield* decode({ ERRANDS_DATABASE_URL: bad })
        expect(Either.isLeft(decoded), bad).toBe(true)
        const text = String(Either.isLeft(decoded) ? decoded.left : '')
        expect(text).toContain('ERRANDS_DATABASE_URL')
        expect(text).toContain('postgres://')
        expect(text).not.toContain('s3cret')
      }
    }))
})
