import { describe, expect, it } from '@effect/vitest'
import { SqlError } from '@effect/sql'
import { fileNameFor } from '@errands/store'
import { rowKeyFor } from './make.ts'
import { toStoreError } from './sql.ts'

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

describe('rowKeyFor', () => {
  it('is the SHA-256 of the id in hex, as the file store names files, for any id', () => {
    expect(rowKeyFor('e1')).toMatch(/^[0-9a-f]{64}$/)
    expect(rowKeyFor('a\u0000b')).not.toBe(rowKeyFor('a'))
    expect(`${rowKeyFor('task/1')}.sealed`).toBe(fileNameFor('task/1'))
  })
})
