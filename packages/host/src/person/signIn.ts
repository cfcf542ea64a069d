/**
 * An errand asks for a site's sign-in (P4, L2, L3; issue #26): `POST /v1/session/permission` and
 * MCP's `browser_request_sign_in`. It answers at once when the errand already holds the site's
 * sign-in or when the trust mode never lends (auto, full); otherwise it puts the question "Allow
 * lends your sign-in to this task" in front of the person (the boundary's `question`: the live view's
 * card, `/v1/person/questions`) and waits — at most `timeoutMs`. Allow lends through lending's one
 * path (`Person.allow`, the same as the permission card's button); Deny and a timeout lend nothing. While it waits, the
 * errand waits for the person (`Person.asked`, shown in health, the sessions' views and the
 * inspector); its end — allow, deny, timeout, or withdrawn when the agent's call goes away — is
 * `Person.answered` with the question's id.
 *
 * The agent is told whether it was lent and why, in words it can act on; never a cookie (L7).
 *
 * @example
 * const answer = yield* requestSignIn({ browsing, person, questions })(key, { site: 'shop.example' })
 * answer.lent // true once the person pressed Allow
 */
import { parseSite } from '@errands/lending'
import type { UpstreamProxy } from '@errands/runtime'
import { Effect, Schema } from 'effect'
import { sessionTarget, type BrowsingShape } from '../browsing/Browsing.ts'
import { BadRequest } from '../errors.ts'
import { conversationIdOf, type SessionKey } from '../sessionKey.ts'
import type { PersonShape } from './Person.ts'
import {
  newQuestionId,
  Question,
  QuestionAnswer,
  type SessionsShape,
  SIGN_IN_DEFAULT_TIMEOUT_MS,
  SIGN_IN_MAX_TIMEOUT_MS,
  SIGN_IN_MIN_TIMEOUT_MS,
  SIGN_IN_SITE_MAX,
} from '@errands/sessions'

/** `POST /v1/session/permission`. @example { site: 'shop.example', timeoutMs: 60000 } */
export const SignInRequest = Schema.Struct({
  site: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(SIGN_IN_SITE_MAX)),
  /** How long to wait for the person (ms); default 120000. */
  timeoutMs: Schema.optional(Schema.Int.pipe(Schema.between(SIGN_IN_MIN_TIMEOUT_MS, SIGN_IN_MAX_TIMEOUT_MS))),
})
/** @see SignInRequest */
export type SignInRequest = typeof SignInRequest.Type

/**
 * What the errand is told. `why`: `allowed` (the person pressed Allow, lent now), `already-lent`
 * (the errand holds it), `denied`, `timeout` (nobody answered in time), `trust` (auto and full
 * trust never lend, L3).
 *
 * @example
 * { site: 'shop.example', lent: false, why: 'denied', message: 'The person said no …' }
 */
export const SignInAnswer = Schema.Struct({
  site: Schema.String,
  lent: Schema.Boolean,
  why: Schema.Literal('allowed', 'already-lent', 'denied', 'timeout', 'trust'),
  message: Schema.String,
})
/** @see SignInAnswer */
export type SignInAnswer = typeof SignInAnswer.Type

/** `GET /v1/person/questions`. @example { questions: [] } */
export const QuestionsAnswer = Schema.Struct({ questions: Schema.Array(Question) })

/** `POST /v1/person/questions/:id`. @example { answer: 'allow' } */
export const AnswerBody = Schema.Struct({ answer: QuestionAnswer })

/** `POST /v1/person/questions/:id`: the question answered. @example { question, answer: 'deny' } */
export const AnsweredQuestion = Schema.Struct({ question: Question, answer: QuestionAnswer })

/** A question's id in a path. @example Schema.is(QuestionId)('q3fa9c1d2') // true */
export const QuestionId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/))

/** What asking needs: the page verbs (to bring the errand up), the person's service and the book of questions. */
export interface SignInDeps {
  readonly browsing: BrowsingShape
  readonly person: PersonShape
  /** The boundary's one book of questions (`question` of @errands/sessions). */
  readonly questions: Pick<SessionsShape, 'question'>
}

const said = (site: string, lent: boolean, why: SignInAnswer['why'], message: string): SignInAnswer => ({
  site,
  lent,
  why,
  message,
})

/**
 * Asks for `site`'s sign-in for the session `key`'s errand (opened, resumed or healed first, like
 * every verb). A site that is no host is a `BadRequest` (400) before anything else runs.
 *
 * @example
 * yield* requestSignIn(deps)(key, { site: 'shop.example', timeoutMs: 30_000 })
 */
export const requestSignIn =
  (deps: SignInDeps) => (key: SessionKey, request: SignInRequest, upstreamProxy?: UpstreamProxy) =>
    Effect.gen(function* () {
      const site = yield* Effect.mapError(
        parseSite(request.site),
        (e) => new BadRequest({ reason: 'invalid-body', message: `site: ${e.message}.` }),
      )
      // Lending needs the errand: an agent asks before its first page as well as after.
      yield* deps.browsing.tabs(sessionTarget(key, upstreamProxy))
      const conversationId = conversationIdOf(key)
      const view = yield* deps.person.view(conversationId)
      const card = yield* deps.person.ask(conversationId, site)
      if (card.decision === 'allowed-always' || view.lentSites.includes(site)) {
        return said(site, true, 'already-lent', `This browser already holds the person's sign-in for ${site}; go on.`)
      }
      if (card.decision === 'not-lent') {
        const mode = yield* Effect.orElseSucceed(
          Effect.map(deps.person.settings, (s) => s.trust),
          () => 'auto' as const,
        )
        return said(
          site,
          false,
          'trust',
          `The person's trust mode (${mode}) never lends a sign-in, so nobody was asked; carry on signed out, or ask ` +
            `the person to sign in inside this browser.`,
        )
      }
      const id = newQuestionId()
      // The errand waits for the person from the question to its end, however it ends (withdrawn: the call went away).
      const outcome = yield* Effect.acquireUseRelease(
        deps.person.asked(conversationId, { id, ask: 'sign-in', site }),
        () => deps.questions.question(conversationId, { id, site }, request.timeoutMs ?? SIGN_IN_DEFAULT_TIMEOUT_MS),
        (_, exit) => deps.person.answered(conversationId, id, exit._tag === 'Success' ? exit.value : 'withdrawn'),
      )
      switch (outcome) {
        case 'allow': {
          // L2: the person's press lends, through lending's one path (open or parked errand).
          yield* deps.person.allow(conversationId, site)
          return said(
            site,
            true,
            'allowed',
            `The person pressed Allow: this browser is now signed in to ${site} as the person. Reload the page to ` +
              `use it.`,
          )
        }
        case 'deny':
          return said(
            site,
            false,
            'denied',
            `The person did not lend their sign-in for ${site}; nothing was lent. Carry on signed out, or ask them ` +
              `what to do.`,
          )
        default:
          return said(
            site,
            false,
            'timeout',
            `Nobody answered within ${Math.round((request.timeoutMs ?? SIGN_IN_DEFAULT_TIMEOUT_MS) / 1000)} s; ` +
              `nothing was lent. Ask again later, or carry on signed out.`,
          )
      }
    })
