// biome-ignore-all lint/suspicious/noExplicitAny: a body Schema of any shape
/**
 * The live view's JSON API, declared (docs/live-view.md, "The API"; docs/edge.md, "Declared routes"): every
 * route the page calls, with who may call it (`live`: the sign-in id in `X-Errands-Live`, X4; `open`: the
 * sign-in itself), the Schemas of its path parameters, body and answer, and the statuses it answers besides
 * the edge's. `routes.ts` gives each its one call and the host's `/v1/openapi.json` lists them beside `/v1`
 * — the table and the document are one declaration.
 *
 * @example
 * liveApi.park.path // '/live/api/conversations/:id/park'
 */
import { EmptyBody, endpoint } from '@errands/edge'
import { Schema } from 'effect'
import { ImportBody, LiveEntrySchema, LiveImportReportSchema, NewBody, PatchBody } from './passwords.ts'
import { LiveStateSchema, StateAnswer } from './state.ts'
import { LiveInputBody } from './wheel.ts'

/** A conversation id as the live view takes it: 1–200 printable ASCII characters. */
export const ConversationIdParam = Schema.String.pipe(
  Schema.pattern(/^[\x21-\x7e]{1,200}$/, { message: () => 'a conversation id is 1–200 printable characters' }),
)
/** A question's id (P4). */
export const QuestionIdParam = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/))
/** A saved sign-in's id (W1). */
export const PasswordIdParam = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9-]{1,64}$/))

/** `POST /live/sign-in`: the host's token (its words never quote it back). */
export const SignInBody = Schema.Struct({
  token: Schema.optional(Schema.String.pipe(Schema.maxLength(4096, { message: () => 'a token is shorter' }))),
})
/** A switch: on or off. @example { on: true } */
export const OnOffBody = Schema.Struct({ on: Schema.Boolean })
/** The person's answer to a question. @example { answer: 'allow' } */
export const LiveAnswerBody = Schema.Struct({ answer: Schema.Literal('allow', 'deny') })
/** A hand-back, with a note for the agent (at most 2,000 characters; never journaled, P5). */
export const HandBackBody = Schema.Struct({
  note: Schema.optional(
    Schema.NullOr(Schema.String.pipe(Schema.maxLength(2_000, { message: () => 'a note of at most 2,000 characters' }))),
  ),
})

const conversation = { id: ConversationIdParam }

/** A conversation action (no fields unless it says), answering the state after it. */
const act = <B extends Schema.Schema<any, any, never> = typeof EmptyBody>(
  verb: string,
  summary: string,
  errors: ReadonlyArray<number> = [404, 503],
  body: B = EmptyBody as unknown as B,
) =>
  endpoint('POST', `/live/api/conversations/:id/${verb}`, 'live', {
    summary,
    params: conversation,
    body,
    answer: StateAnswer,
    errors,
  })

/** Every route of the live view's API. */
export const liveApi = {
  signIn: endpoint('POST', '/live/sign-in', 'open', {
    summary: "Sign in with the host's token: answers the sign-in id the page keeps in memory (X4).",
    body: SignInBody,
    answer: Schema.Struct({ signedIn: Schema.Literal(true), id: Schema.String }),
    errors: [401],
  }),
  signOut: endpoint('POST', '/live/sign-out', 'open', {
    summary: 'Forget the sign-in id sent in X-Errands-Live.',
    body: EmptyBody,
    answer: Schema.Struct({ signedIn: Schema.Literal(false) }),
  }),
  state: endpoint('GET', '/live/api/state', 'live', { summary: 'What the page shows.', answer: LiveStateSchema }),
  inspector: endpoint('PUT', '/live/api/inspector', 'live', {
    summary: 'Switch the XState inspector on or off (V3).',
    body: OnOffBody,
    answer: StateAnswer,
    errors: [404, 409],
  }),
  question: endpoint('POST', '/live/api/questions/:id', 'live', {
    summary: "Answer an errand's sign-in question (P4): Allow lends, Deny does not.",
    params: { id: QuestionIdParam },
    body: LiveAnswerBody,
    answer: StateAnswer,
    errors: [404],
  }),
  park: act('park', "Park a conversation's errand (where it lives, in a cluster)."),
  resume: act('resume', "Resume a conversation's parked errand."),
  close: act('close', "Close and forget a conversation's errand."),
  ownBrowser: act('own-browser', 'Give a chat a browser of its own, or take it back (E2).', [404, 503], OnOffBody),
  takeWheel: act('take-wheel', "Take the wheel of a conversation's errand (P1).", [400, 404, 503]),
  handBack: act(
    'hand-back',
    'Hand the wheel back, with a note for the agent waiting for help (P2, P3).',
    [404],
    HandBackBody,
  ),
  input: endpoint('POST', '/live/api/conversations/:id/input', 'live', {
    summary: "The person's input while at the wheel, applied to the active tab in order (P1).",
    params: conversation,
    body: LiveInputBody,
    answer: Schema.Struct({ applied: Schema.Number }),
    errors: [404, 409, 422, 502, 504],
  }),
  passwords: endpoint('GET', '/live/api/passwords', 'live', {
    summary: 'The saved sign-ins, never a password or TOTP secret (W1, W4).',
    answer: Schema.Struct({ passwords: Schema.Array(LiveEntrySchema) }),
    errors: [404],
  }),
  addPassword: endpoint('POST', '/live/api/passwords', 'live', {
    summary: 'Save a sign-in.',
    body: NewBody,
    answer: LiveEntrySchema,
    errors: [404, 409],
  }),
  importPasswords: endpoint('POST', '/live/api/passwords/import', 'live', {
    summary: 'Import a Chrome or Firefox CSV export (up to 1 MiB).',
    body: ImportBody,
    answer: LiveImportReportSchema,
    errors: [404],
  }),
  updatePassword: endpoint('PUT', '/live/api/passwords/:id', 'live', {
    summary: 'Change a saved sign-in (`totp: null` forgets its TOTP secret).',
    params: { id: PasswordIdParam },
    body: PatchBody,
    answer: LiveEntrySchema,
    errors: [404, 409],
  }),
  removePassword: endpoint('DELETE', '/live/api/passwords/:id', 'live', {
    summary: 'Remove a saved sign-in.',
    params: { id: PasswordIdParam },
    answer: Schema.Struct({ deleted: Schema.Literal(true) }),
    errors: [404],
  }),
} as const
