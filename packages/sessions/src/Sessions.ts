/**
 * The one session boundary every face goes through (docs/architecture.md, "The seam"; ADR 0044): HTTP, MCP,
 * DevTools, the live view, the Daily tools and lending open, drive, view, park, resume and close a
 * conversation's errand through `Sessions`, and read the engine's capacity and health through it. A face
 * depends on this package and on nothing of the supervisor, so the import rules (scripts/imports.rules.ts), not a
 * lint, keep it off the `Supervisor`; the supervisor provides the service, a cluster overlays it.
 *
 * Every verb is written once, in {@link SessionsShape}, and marked once, in {@link ACCESS}: it `acts` on an
 * errand (changes it, or what it holds) or only `reads`. What must hang on every verb — recording, spans, counts —
 * attaches once, at {@link withSeam}, and sees that mark.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const sessions = yield* Sessions
 *   const binding = yield* sessions.resolve({ id: 'session:task-42', kind: 'task' })
 *   yield* sessions.undrive('session:task-42')
 *   yield* sessions.park('session:task-42')
 * })
 */
import type { TaskStatus } from '@errands/machines'
import type { ContextError, ContextId, Snapshot, UpstreamProxy } from '@errands/runtime'
import type { StoreError } from '@errands/store'
import { Context, Effect, Layer } from 'effect'
import type { QuestionNotFound, SupervisorError, UnknownConversation } from './errors.ts'
import type { Capacity, HealthMessage } from './health.ts'
import type { Question, QuestionAbout, QuestionAnswer, QuestionOutcome } from './questions.ts'
import type { Ask, AskOutcome, Binding, Conversation, ErrandView, HandBack } from './vocabulary.ts'

/**
 * The session verbs. Conversation ids are the supervisor's (`session:<key>` for an agent's session,
 * `chat:<id>` for a chat): the faces map their own keys onto them.
 */
export interface SessionsShape {
  /** Registers a conversation; a task (or a chat with its own browser) gets an open errand (E1, E2). */
  readonly open: (conversation: Conversation) => Effect.Effect<Binding, SupervisorError>
  /**
   * Starts driving the conversation's errand, opening it as `conversation` says when it is not known yet,
   * resuming it when parked and healing it when crashed; pair with `undrive`. A conversation that names an
   * upstream proxy is opened first, which takes the proxy when it opens the errand and changes nothing for one
   * already open.
   */
  readonly resolve: (conversation: Conversation) => Effect.Effect<Binding, SupervisorError>
  /** Runs `f` with the conversation's context while driving it (never parked while driven, C2). */
  readonly use: <A, E, R>(
    conversationId: string,
    f: (binding: Binding) => Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, E | SupervisorError, R>
  /** Starts driving (resuming or healing first when needed); pair with `undrive`. `use` does both. */
  readonly drive: (conversationId: string) => Effect.Effect<Binding, SupervisorError>
  readonly undrive: (conversationId: string) => Effect.Effect<void>
  readonly taskChanged: (conversationId: string, status: TaskStatus) => Effect.Effect<ErrandView, UnknownConversation>
  readonly chatDeleted: (conversationId: string) => Effect.Effect<void>
  /** Gives a chat a browser of its own, or takes it back (E2). */
  readonly setOwnBrowser: (conversationId: string, on: boolean) => Effect.Effect<ErrandView, SupervisorError>
  readonly watch: (conversationId: string) => Effect.Effect<void, SupervisorError>
  readonly unwatch: (conversationId: string) => Effect.Effect<void>
  readonly park: (conversationId: string) => Effect.Effect<ErrandView, UnknownConversation>
  readonly resume: (conversationId: string) => Effect.Effect<Binding, SupervisorError>
  /** Closes and forgets the conversation's errand. Idempotent. */
  readonly release: (conversationId: string) => Effect.Effect<void>
  readonly view: (conversationId: string) => Effect.Effect<ErrandView, UnknownConversation>
  readonly list: Effect.Effect<ReadonlyArray<ErrandView>>
  /** Calls `listener` whenever an errand's state changes; returns the unsubscribe. */
  readonly onChange: (listener: (view: ErrandView) => void) => () => void
  /** The context id of the conversation's live errand, if any (for runtime-level tools). */
  readonly contextOf: (conversationId: string) => ContextId | undefined
  /** The errand's last in-memory snapshot (for the engine's own tools; never shown to an agent). */
  readonly lastSnapshot: (conversationId: string) => Snapshot | undefined
  /**
   * Names the upstream proxy the conversation's errand leaves through from now on (`undefined`: none beyond the
   * runtime's default). An open errand's context is re-chained at once; a parked one takes it when it resumes.
   */
  readonly setUpstreamProxy: (
    conversationId: string,
    proxy: UpstreamProxy | undefined,
  ) => Effect.Effect<void, SupervisorError | ContextError>
  /**
   * Brings this process up to date with the sealed store for one errand another process sharing the store may
   * have parked, sealed or closed (a cluster peer): `adopted`, `known`, `absent` or `forgotten`.
   */
  readonly adopt: (conversationId: string) => Effect.Effect<'adopted' | 'known' | 'absent' | 'forgotten', StoreError>
  /** A person takes the wheel (resuming a parked errand first); agents' acting verbs are refused until hand-back. */
  readonly takeWheel: (conversationId: string) => Effect.Effect<ErrandView, SupervisorError>
  /** The person hands back, with an optional note for the agent; idempotent. */
  readonly handBack: (conversationId: string, note?: string | undefined) => Effect.Effect<void, UnknownConversation>
  /** Whether a person has the wheel of the conversation's errand now. */
  readonly personDriving: (conversationId: string) => boolean
  /**
   * An agent asks for help with a reason and waits, at most `timeoutMs`, for a person to hand the wheel back;
   * the request shows in the live view while it waits, and is gone however it ends.
   */
  readonly askForHelp: (
    conversationId: string,
    reason: string,
    timeoutMs: number,
  ) => Effect.Effect<HandBack, UnknownConversation>
  /**
   * Hears each hand-back of a known conversation with the person's note (null without one), before the view
   * changes. Returns the unsubscribe.
   */
  readonly onHandBack: (listener: (conversationId: string, note: string | null) => void) => () => void
  /**
   * An agent of the conversation asked a person (`ask`) and waits: the errand shows waiting for the person, and
   * idleness does not park it, until `answered` with the same id.
   */
  readonly asked: (conversationId: string, ask: Ask) => Effect.Effect<void, UnknownConversation>
  /** How an ask ended; called once for every `asked`, whatever happened to the errand meanwhile. */
  readonly answered: (conversationId: string, id: string, outcome: AskOutcome) => Effect.Effect<void>
  /**
   * Puts a sign-in question before the person (P4) and waits, at most `timeoutMs`, for their Allow or Deny: listed
   * by `questions` while it waits, gone however it ends. One book per engine (`questions.ts`); the errand's own
   * waiting and the journal are `asked` / `answered`, which the asker brackets it with under the same id.
   */
  readonly question: (conversationId: string, about: QuestionAbout, timeoutMs: number) => Effect.Effect<QuestionOutcome>
  /** The questions waiting for the person, oldest first. */
  readonly questions: Effect.Effect<ReadonlyArray<Question>>
  /** The person's answer: its asker gets it. A question no longer waiting is `QuestionNotFound` (404). */
  readonly answerQuestion: (id: string, answer: QuestionAnswer) => Effect.Effect<Question, QuestionNotFound>
  /** Calls `listener` whenever a question is put or ends; returns the unsubscribe. */
  readonly onQuestions: (listener: () => void) => () => void
  /** Open, parked and limit of the engine's errands, and how many a person drives or waits on (H3). */
  readonly capacity: Effect.Effect<Capacity>
  /** The recent health messages, in words (H3). */
  readonly health: Effect.Effect<ReadonlyArray<HealthMessage>>
  /** Calls `listener` on each new health message; returns the unsubscribe. */
  readonly onHealth: (listener: (message: HealthMessage) => void) => () => void
}

/** A verb's name. */
export type SessionVerb = keyof SessionsShape

/** What a verb does to an errand: changes it or what it holds (`acts`), or only looks (`reads`). */
export type Access = 'acts' | 'reads'

/**
 * Every verb and its mark, once. The type makes the table whole: a verb added to {@link SessionsShape} and not
 * here fails to compile.
 *
 * @example
 * ACCESS.park // 'acts'
 */
export const ACCESS = {
  open: 'acts',
  resolve: 'acts',
  use: 'acts',
  drive: 'acts',
  undrive: 'acts',
  taskChanged: 'acts',
  chatDeleted: 'acts',
  setOwnBrowser: 'acts',
  watch: 'acts',
  unwatch: 'acts',
  park: 'acts',
  resume: 'acts',
  release: 'acts',
  view: 'reads',
  list: 'reads',
  onChange: 'reads',
  contextOf: 'reads',
  lastSnapshot: 'reads',
  setUpstreamProxy: 'acts',
  adopt: 'acts',
  takeWheel: 'acts',
  handBack: 'acts',
  personDriving: 'reads',
  askForHelp: 'acts',
  onHandBack: 'reads',
  asked: 'acts',
  answered: 'acts',
  question: 'acts',
  questions: 'reads',
  answerQuestion: 'acts',
  onQuestions: 'reads',
  capacity: 'reads',
  health: 'reads',
  onHealth: 'reads',
} as const satisfies Record<SessionVerb, Access>

/**
 * The verbs by name, in {@link ACCESS}'s order.
 *
 * @example
 * SESSION_VERBS.includes('park') // true
 */
export const SESSION_VERBS = Object.keys(ACCESS) as ReadonlyArray<SessionVerb>

/** One call of a verb that answers with an effect, as the seam sees it. */
export interface SessionCall {
  readonly verb: SessionVerb
  readonly access: Access
  /** The conversation the call is about (`undefined` for `list`, `capacity` and `health`). */
  readonly conversationId: string | undefined
}

/** What runs around every effectful verb: it must answer with the same success and failure as `effect`. */
export type Around = <A, E, R>(call: SessionCall, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

const conversationOf = (first: unknown): string | undefined => {
  if (typeof first === 'string') return first
  if (typeof first === 'object' && first !== null && typeof (first as { id?: unknown }).id === 'string')
    return (first as { id: string }).id
  return undefined
}

/**
 * The same verbs with `around` run around every one that answers with an effect (the others — listeners and
 * synchronous reads — pass through): the one place where what spans every face attaches.
 *
 * @example
 * const counted = withSeam(sessions, (call, effect) => Effect.tap(effect, () => Effect.sync(() => seen.push(call))))
 */
export const withSeam = (sessions: SessionsShape, around: Around): SessionsShape => {
  const wrapped: Record<string, unknown> = {}
  for (const verb of SESSION_VERBS) {
    const access = ACCESS[verb]
    const value: unknown = sessions[verb]
    if (Effect.isEffect(value)) wrapped[verb] = around({ verb, access, conversationId: undefined }, value)
    else if (typeof value === 'function')
      wrapped[verb] = (...args: ReadonlyArray<unknown>) => {
        const answer: unknown = value(...args)
        return Effect.isEffect(answer)
          ? around({ verb, access, conversationId: conversationOf(args[0]) }, answer)
          : answer
      }
    else wrapped[verb] = value
  }
  return wrapped as unknown as SessionsShape
}

/**
 * The session service (`@errands/sessions/Sessions`). The supervisor provides it (`sessionsLayer` of
 * `@errands/supervisor`); a cluster overlays it.
 *
 * @example
 * const sessions = yield* Sessions
 * const view = yield* sessions.view('session:task-42')
 */
export class Sessions extends Context.Tag('@errands/sessions/Sessions')<Sessions, SessionsShape>() {
  /**
   * A stand-in for a face's unit tests: the given verbs, and every other one fails loudly.
   *
   * @example
   * Sessions.layerTest({ park: () => Effect.succeed(view) })
   */
  static layerTest(partial: Partial<SessionsShape>): Layer.Layer<Sessions> {
    const missing = (name: string) => () => Effect.die(new Error(`Sessions.layerTest: "${name}" was not provided`))
    return Layer.succeed(
      Sessions,
      new Proxy(partial as SessionsShape, {
        get: (target, key: string) => (key in target ? target[key as keyof SessionsShape] : missing(key)),
      }),
    )
  }
}
