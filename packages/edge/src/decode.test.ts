import { Effect, Schema } from 'effect'
import { describe, expect, it } from 'vitest'
import { decodeBody, decodeQuery } from './decode.ts'

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
})
