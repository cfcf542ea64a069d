import { Either, Schema } from 'effect'
import { describe, expect, it } from 'vitest'
import { intBetween } from './config.ts'

describe('intBetween: the one whole-number decoder of every ERRANDS_* number (ADR 0022)', () => {
  const decode = (schema: Schema.Schema<number, string>, text: string) =>
    Either.mapLeft(Schema.decodeUnknownEither(schema)(text), (e) => e.message.split('\n').pop()!.replace(/^\W+/, ''))

  it('takes both bounds and whole numbers between them', () => {
    expect(['1', '32', '7'].map((t) => decode(intBetween(1, 32), t))).toEqual([
      Either.right(1),
      Either.right(32),
      Either.right(7),
    ])
  })

  it("says the same words for every way a value is wrong: the range by default, or the caller's text", () => {
    for (const bad of ['0', '33', '2.5', 'many', '', '1e9'])
      expect(decode(intBetween(1, 32), bad)).toEqual(Either.left('must be a whole number from 1 to 32'))
    for (const bad of ['0', 'x'])
      expect(decode(intBetween(1, 4096, 'must be 1 to 4096 (the same on every runner)'), bad)).toEqual(
        Either.left('must be 1 to 4096 (the same on every runner)'),
      )
  })
})
