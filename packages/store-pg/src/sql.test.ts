import { describe, expect, it } from '@effect/vitest'
import { SqlError } from '@effect/sql'
import { fileNameFor } from '@errands/store'
import { rowKeyFor } from './make.ts'
import { pgFailure, toStoreError } from './sql.ts'

const failure = (cause: unknown) =>
  toStoreError('write a parked errand')(new SqlError.SqlError({ cause, message: 'Failed to execute statement' }))

describe('toStoreError', () => {
  it('says what a person can act on, by SQLSTATE or socket code', () => {
    expect(failure({ code: '53100' }).reason).toBe('disk-full')
    expect(failure({ code: '42501' }).reason).toBe('permission')
    expect(failure({ code: '28P01' }).reason).toBe('permission')
    expect(failure({ code: '40001' }).reason).toBe('io')
    expect(failure({ code: 'ECONNREFUSED' }).message).toBe(
      'Could not write a parked errand in Postgres (ECONNREFUSED).',
    )
    expect(failure(new Error('boom')).message).toBe('Could not write a parked errand in Postgres.')
  })

  it("never repeats the driver's text, which can quote parameters", () => {
    const cause = Object.assign(new Error('invalid input syntax: "ck-SECRET-COOKIE"'), {
      code: '22P02',
      detail: 'Key (x)=(ck-SECRET)',
    })
    expect(JSON.stringify(failure(cause))).not.toContain('SECRET')
    expect(failure({ code: 'a code with "SECRET" in it' }).message).not.toContain('SECRET')
  })
})

describe('a TLS failure says what failed (K2, L7)', () => {
  it("names the certificate's problem and what to do, by Node's code; a server without TLS likewise", () => {
    expect(failure({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }).message).toBe(
      "Could not write a parked errand in Postgres (DEPTH_ZERO_SELF_SIGNED_CERT: the server's TLS certificate is not " +
        'signed by a CA this host trusts: name its CA with sslrootcert=, or use sslmode=require to encrypt without ' +
        'checking the certificate).',
    )
    expect(pgFailure({ code: 'SELF_SIGNED_CERT_IN_CHAIN' })).toContain('not signed by a CA this host trusts')
    expect(pgFailure({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' })).toContain(
      "the server's TLS certificate does not name the host in the URL",
    )
    expect(pgFailure({ code: 'CERT_HAS_EXPIRED' })).toBe("CERT_HAS_EXPIRED: the server's TLS certificate has expired")
    expect(pgFailure({ code: 'ERR_SSL_WRONG_VERSION_NUMBER' })).toBe(
      'ERR_SSL_WRONG_VERSION_NUMBER: the TLS handshake with the server failed',
    )
    expect(pgFailure(new Error('The server does not support SSL connections'))).toBe(
      "NO_TLS: the URL asks for TLS and the server does not offer it: turn on ssl in the server's postgresql.conf",
    )
    // Not TLS: the code alone, as before; no code: nothing.
    expect(pgFailure({ code: 'ECONNREFUSED' })).toBe('ECONNREFUSED')
    expect(pgFailure(new Error('anything else'))).toBeUndefined()
  })
})

describe('rowKeyFor', () => {
  it('is the SHA-256 of the id in hex, as the file store names files, for any id', () => {
    expect(rowKeyFor('e1')).toMatch(/^[0-9a-f]{64}$/)
    expect(rowKeyFor('a\u0000b')).not.toBe(rowKeyFor('a'))
    expect(`${rowKeyFor('task/1')}.sealed`).toBe(fileNameFor('task/1'))
  })
})
