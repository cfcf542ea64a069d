import { describe, expect, it } from '@effect/vitest'
import { ConfigProvider, Effect, Either, Option, Redacted } from 'effect'
import { databaseUrlConfig, describeDatabase, driverUrl, isLoopbackHost, tlsProblem } from './config.ts'

const decode = (env: Record<string, string>) =>
  Effect.withConfigProvider(Effect.either(databaseUrlConfig), ConfigProvider.fromMap(new Map(Object.entries(env))))

describe('ERRANDS_DATABASE_URL', () => {
  it.effect('unset is None: the file store stays', () =>
    Effect.gen(function* () {
      expect(yield* decode({})).toEqual(Either.right(Option.none()))
    }),
  )

  it.effect('a Postgres URL decodes redacted: printing it shows no password', () =>
    Effect.gen(function* () {
      const url = 'postgresql://errands:s3cret-pw@db.internal:6543/errands?sslmode=verify-full'
      const decoded = yield* decode({ ERRANDS_DATABASE_URL: url })
      const value = Either.getOrThrow(decoded).pipe(Option.getOrThrow)
      expect(Redacted.value(value)).toBe(url)
      expect(String(value)).not.toContain('s3cret')
      expect(JSON.stringify({ value })).not.toContain('s3cret')
      expect(describeDatabase(value)).toBe('Postgres at db.internal:6543/errands')
    }),
  )

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
    }),
  )
})

describe('ERRANDS_DATABASE_URL off this machine needs TLS (issue #23, L7)', () => {
  const explain = (url: string) =>
    Effect.gen(function* () {
      const decoded = yield* decode({ ERRANDS_DATABASE_URL: url })
      return Either.isLeft(decoded) ? String(decoded.left) : undefined
    })

  it.effect(
    'a network host without sslmode fails start-up naming the variable, the host and why — never the password',
    () =>
      Effect.gen(function* () {
        for (const url of [
          'postgres://errands:s3cret-pw@10.0.0.5:5432/errands',
          'postgres://errands:s3cret-pw@db.internal/errands?sslmode=prefer',
          'postgres://errands:s3cret-pw@db.internal/errands?sslmode=disable&ssl=true',
          'postgresql://errands:s3cret-pw@[2001:db8::5]/errands?ssl=false',
          // The host parameter wins over the URL's host in the driver (as in libpq).
          'postgres://errands:s3cret-pw@127.0.0.1/errands?host=db.internal',
        ]) {
          const text = yield* explain(url)
          expect(text, url).toContain('ERRANDS_DATABASE_URL')
          expect(text, url).toMatch(
            new RegExp(
              'names (10\\.0\\.0\\.5|db\\.internal|\\[2001:db8::5\\]), which is not this machine, without TLS: ' +
                'add sslmode=verify-full',
            ),
          )
          expect(text, url).not.toContain('s3cret')
        }
      }),
  )

  it.effect('TLS asked for: sslmode=require, verify-ca, verify-full or ssl=true', () =>
    Effect.gen(function* () {
      for (const q of [
        'sslmode=verify-full',
        'sslmode=verify-ca&sslrootcert=/etc/errands/db-ca.pem',
        'sslmode=require',
        'ssl=true',
        'ssl=1',
        'sslmode=verify-full&sslrootcert=/etc/errands/db-ca.pem',
      ]) {
        expect(yield* explain(`postgres://errands:pw@db.internal:5432/errands?${q}`), q).toBeUndefined()
      }
    }),
  )

  it.effect('a setting given twice is refused, whatever its values and host (attack: the first passes the check)', () =>
    Effect.gen(function* () {
      for (const q of [
        'sslmode=verify-full&sslmode=disable',
        'sslmode=disable&sslmode=verify-full',
        'ssl=true&ssl=0',
        'sslmode=verify-full&host=127.0.0.1&host=10.0.0.9',
      ]) {
        for (const host of ['db.internal:5432', '127.0.0.1:5432']) {
          const text = yield* explain(`postgres://errands:s3cret@${host}/errands?${q}`)
          expect(text, q).toMatch(/gives (sslmode|ssl|host) more than once/)
          expect(text, q).not.toContain('s3cret')
        }
      }
    }),
  )

  it.effect('this machine keeps working plainly: 127.0.0.0/8, ::1, localhost, a Unix socket', () =>
    Effect.gen(function* () {
      for (const url of [
        'postgres://postgres:pw@127.0.0.1:5432/postgres',
        'postgres://postgres:pw@127.0.0.2/postgres',
        'postgres://postgres:pw@[::1]:5432/postgres',
        'postgres://postgres:pw@localhost/postgres',
        'postgres:///errands?host=/var/run/postgresql',
      ]) {
        expect(yield* explain(url), url).toBeUndefined()
      }
      expect(tlsProblem('postgres://u:pw@127.0.0.1/x')).toBeUndefined()
      expect(isLoopbackHost('10.0.0.5')).toBe(false)
      expect(isLoopbackHost('127.evil.example')).toBe(false)
    }),
  )
})

describe('sslmode means what libpq says (K2, L7)', () => {
  const explain = (url: string) =>
    Effect.gen(function* () {
      const decoded = yield* decode({ ERRANDS_DATABASE_URL: url })
      return Either.isLeft(decoded) ? String(decoded.left) : undefined
    })

  it.effect('a word libpq does not know, or verify-ca with no CA to check against, stops start-up saying so', () =>
    Effect.gen(function* () {
      for (const host of ['db.internal', '127.0.0.1']) {
        // node-postgres's own word, and a typo: neither is libpq's, and neither is taken as something else.
        for (const mode of ['no-verify', 'verify_full', 'REQUIRE']) {
          const text = yield* explain(`postgres://u:s3cret@${host}/errands?sslmode=${mode}`)
          expect(text, mode).toContain(`gives sslmode=${mode}, which is not one of libpq's: disable, allow, prefer`)
          expect(text, mode).not.toContain('s3cret')
        }
        expect(yield* explain(`postgres://u:s3cret@${host}/errands?sslmode=verify-ca`)).toContain(
          'gives sslmode=verify-ca without sslrootcert',
        )
      }
    }),
  )

  it('the driver is told to read sslmode as libpq does; the URL is otherwise as given, and stays redacted', () => {
    const url = 'postgres://errands:s3cret@db.internal:5432/errands?sslmode=require&application_name=x'
    const told = driverUrl(Redacted.make(url))
    expect(String(told)).not.toContain('s3cret')
    const parsed = new URL(Redacted.value(told))
    expect(parsed.password).toBe('s3cret')
    expect(parsed.host).toBe('db.internal:5432')
    expect(Object.fromEntries(parsed.searchParams)).toEqual({
      sslmode: 'require',
      application_name: 'x',
      uselibpqcompat: 'true',
    })
    // No sslmode: nothing to read, nothing changed (a loopback URL; or ssl=true, which checks the certificate).
    for (const plain of ['postgres://u:pw@127.0.0.1/x', 'postgres://u:pw@db.internal/x?ssl=true'])
      expect(Redacted.value(driverUrl(Redacted.make(plain)))).toBe(plain)
  })
})
