import { Effect, Schema } from 'effect'
import { describe, expect, it } from 'vitest'
import { decodeBody, decodeParams, decodeQuery } from './decode.ts'

const Click = Schema.Struct({ selector: Schema.String, timeoutMs: Schema.optional(Schema.Number) })
const refusal = <A, E>(effect: Effect.Effect<A, E>) => Effect.runSync(Effect.flip(effect))

describe('the one decoder of what a front is sent (docs/edge.md)', () => {
  it('decodes a fitting body; a blank one is {}', () => {
    expect(Effect.runSync(decodeBody(Click, '{"selector":"#go"}'))).toEqual({ selector: '#go' })
    expect(refusal(decodeBody(Click, '  '))).toMatchObject({ reason: 'invalid-body' })
  })

  it('names every problem by its path, unknown fields included, in one sentence (400 invalid-body)', () => {
    const e = refusal(decodeBody(Click, '{"selector":1,"timeoutMs":"x","extra":true}'))
    expect(e).toMatchObject({ _tag: 'BadRequest', status: 400, reason: 'invalid-body' })
    expect(e.message).toMatch(/^The body does not fit this endpoint — /)
    for (const path of ['selector', 'timeoutMs', 'extra']) expect(e.message).toContain(`${path}:`)
  })

  it('refuses what is not a JSON object, and JSON that does not parse', () => {
    expect(refusal(decodeBody(Click, '[1]'))).toMatchObject({ message: 'The body must be a JSON object.' })
    expect(refusal(decodeBody(Click, '{'))).toMatchObject({ reason: 'invalid-json' })
  })

  it('a query parameter given twice, or one the endpoint does not take, is 400 invalid-parameter', () => {
    const Query = Schema.Struct({ fullPage: Schema.optional(Schema.Literal('true', 'false')) })
    expect(Effect.runSync(decodeQuery(Query, new URLSearchParams('fullPage=true')))).toEqual({ fullPage: 'true' })
    expect(refusal(decodeQuery(Query, new URLSearchParams('fullPage=true&fullPage=false')))).toMatchObject({
      reason: 'invalid-parameter',
      message: 'The query parameter fullPage is given twice.',
    })
    expect(refusal(decodeQuery(Query, new URLSearchParams('other=1'))).message).toContain('other:')
  })

  it('never quotes the value it refused: a wrong type, a string too long, an optional field, a union', () => {
    const secret = 'the-persons-secret-42'
    const Body = Schema.Struct({
      token: Schema.optional(Schema.String.pipe(Schema.maxLength(8))),
      note: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(8)))),
      kind: Schema.Literal('a', 'b'),
    })
    const e = refusal(decodeBody(Body, JSON.stringify({ token: secret, note: secret, kind: secret })))
    expect(e.message).toMatch(/token: .*note: .*kind: /)
    expect(e.message).not.toContain(secret)
    expect(refusal(decodeBody(Click, JSON.stringify({ selector: [secret] }))).message).not.toContain(secret)
  })

  it('decodes path parameters with their Schemas; one that does not fit is named (400 invalid-parameter)', () => {
    const Id = Schema.String.pipe(Schema.pattern(/^[a-z]{1,4}$/))
    expect(Effect.runSync(decodeParams({ id: Id }, { id: 'abc' }))).toEqual({ id: 'abc' })
    expect(refusal(decodeParams({ id: Id }, { id: 'the-secret' }))).toMatchObject({
      reason: 'invalid-parameter',
      message: 'The path parameter id is not valid.',
    })
  })
})
