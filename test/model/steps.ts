/**
 * The steps of the model-based suite as plain data, their random generator, and the journal
 * format: one JSON object per line, decoded with effect/Schema so a hand-edited journal that is
 * wrong says which line and field.
 *
 * @example
 * const line = encodeStep({ op: 'setCookie', id: 't0', tab: 0, site: 'shop.example' })
 * decodeJournal(line) // [{ op: 'setCookie', id: 't0', tab: 0, site: 'shop.example' }]
 */
import { Either, ParseResult, Schema } from 'effect'
import fc from 'fast-check'

/** Conversation ids the suite uses (tasks). @example fc.constantFrom(...IDS) */
export const IDS = ['t0', 't1', 't2', 't3'] as const
/**
 * Fixture sites (real host names, mapped to 127.0.0.1). The person is signed in on the first three. @example
 * server.url(SITES[0], '/')
 */
export const SITES = ['shop.example', 'mail.example', 'alice.github.io', 'bob.github.io'] as const
/** Sites the person's main context is signed in to. @example SIGNED_IN.includes('shop.example') // true */
export const SIGNED_IN = ['shop.example', 'mail.example', 'alice.github.io'] as const
/** Always allowed at the start of every run (L1 seeding). @example initialModel({ cap: 2, always: ALWAYS, main }) */
export const ALWAYS = ['shop.example'] as const

const Id = Schema.Literal(...IDS)
const SiteName = Schema.Literal(...SITES)
const Tab = Schema.Int.pipe(Schema.between(0, 9))

/**
 * One step. `tab` picks a tab of the errand by position in the model's list, modulo its length,
 * so any number stays valid while fast-check shrinks.
 *
 * @example
 * const s: Step = { op: 'crash' }
 */
export const Step = Schema.Union(
  Schema.Struct({ op: Schema.Literal('open', 'park', 'resume'), id: Id }),
  Schema.Struct({ op: Schema.Literal('close'), id: Id, how: Schema.Literal('done', 'release') }),
  Schema.Struct({ op: Schema.Literal('visit', 'setCookie', 'setStorage'), id: Id, tab: Tab, site: SiteName }),
  Schema.Struct({ op: Schema.Literal('openTab'), id: Id, site: SiteName }),
  Schema.Struct({ op: Schema.Literal('closeTab'), id: Id, tab: Tab }),
  Schema.Struct({ op: Schema.Literal('allow'), id: Id, site: Schema.Literal(...SIGNED_IN) }),
  Schema.Struct({ op: Schema.Literal('revoke'), site: SiteName }),
  Schema.Struct({ op: Schema.Literal('signOut', 'restart', 'crash', 'audit') }),
)
/** @example const s: Step = { op: 'open', id: 't0' } */
export type Step = typeof Step.Type

const id = fc.constantFrom(...IDS)
const site = fc.constantFrom(...SITES)
const tab = fc.nat({ max: 9 })

/**
 * Random steps, weighted so that errands exist and hold things before the rarer, costlier steps
 * (restart, crash, audit) come.
 *
 * @example
 * fc.sample(stepArbitrary, 3)
 */
export const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: id.map((i) => ({ op: 'open' as const, id: i })) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('visit' as const), id, tab, site }) },
  { weight: 7, arbitrary: fc.record({ op: fc.constant('setCookie' as const), id, tab, site }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('setStorage' as const), id, tab, site }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('openTab' as const), id, site }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('closeTab' as const), id, tab }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('allow' as const), id, site: fc.constantFrom(...SIGNED_IN) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('revoke' as const), site }) },
  { weight: 1, arbitrary: fc.constant({ op: 'signOut' as const }) },
  { weight: 3, arbitrary: id.map((i) => ({ op: 'park' as const, id: i })) },
  { weight: 3, arbitrary: id.map((i) => ({ op: 'resume' as const, id: i })) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('close' as const),
      id,
      how: fc.constantFrom('done' as const, 'release' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'restart' as const }) },
  { weight: 2, arbitrary: fc.constant({ op: 'crash' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'audit' as const }) },
)

/** One step as one journal line. @example encodeStep({ op: 'crash' }) // '{"op":"crash"}' */
export const encodeStep = (step: Step): string => JSON.stringify(Schema.encodeSync(Step)(step))

/** A step's short text, as fast-check prints commands. @example stepText({ op: 'open', id: 't0' }) // 'open(t0)' */
export const stepText = (step: Step): string => {
  const { op, ...args } = step
  return `${op}(${Object.values(args).join(', ')})`
}

/** A journal line that is not a step. @example new JournalLineInvalid({ line: 3, message: 'op: expected "open"' }) */
export class JournalLineInvalid extends Schema.TaggedError<JournalLineInvalid>()('JournalLineInvalid', {
  line: Schema.Number,
  message: Schema.String,
}) {}

/**
 * Decodes a journal (JSON lines; blank lines and lines starting with `#` are skipped).
 * Throws {@link JournalLineInvalid} naming the first bad line.
 *
 * @example
 * decodeJournal('{"op":"open","id":"t0"}\n{"op":"crash"}')
 */
export const decodeJournal = (text: string): Step[] =>
  text.split('\n').flatMap((raw, index) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return []
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch (e) {
      throw new JournalLineInvalid({ line: index + 1, message: `not JSON: ${String(e)}` })
    }
    const decoded = Schema.decodeUnknownEither(Step)(json)
    if (Either.isLeft(decoded)) {
      throw new JournalLineInvalid({
        line: index + 1,
        message: ParseResult.TreeFormatter.formatErrorSync(decoded.left),
      })
    }
    return [decoded.right]
  })

/** A whole journal. @example encodeJournal(steps) */
export const encodeJournal = (steps: ReadonlyArray<Step>): string => `${steps.map(encodeStep).join('\n')}\n`
