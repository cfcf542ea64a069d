import { Schema } from 'effect'

/**
 * Every open-context slot is taken by an errand someone is driving or watching (C3).
 * The message is written for a model: it says what to do next.
 *
 * @example
 * supervisor.use('c1', f).pipe(Effect.catchTag('AllBusy', (e) => Effect.logWarning(e.message)))
 */
export class AllBusy extends Schema.TaggedError<AllBusy>()('AllBusy', {
  reason: Schema.Literal('all-busy'),
  limit: Schema.Number,
  message: Schema.String,
}) {
  /** HTTP status for the host: the service is temporarily full. */
  readonly status = 503
  static of(limit: number): AllBusy {
    return new AllBusy({
      reason: 'all-busy',
      limit,
      message:
        `All ${limit} browser slots are busy with errands that are being driven or watched; wait a minute and ` +
        `try again.`,
    })
  }
}

/** The conversation has no errand, or its errand has ended. */
export class UnknownConversation extends Schema.TaggedError<UnknownConversation>()('UnknownConversation', {
  reason: Schema.Literal('unknown-conversation', 'errand-closed'),
  conversationId: Schema.String,
  message: Schema.String,
}) {
  readonly status = 404
}

/**
 * The errand's browser could not be opened, resumed or healed this time — or not by this process:
 * `held-elsewhere` when another process sharing the store holds it (a cluster's other runner, K1).
 */
export class ErrandUnavailable extends Schema.TaggedError<ErrandUnavailable>()('ErrandUnavailable', {
  reason: Schema.Literal('open-failed', 'resume-failed', 'heal-failed', 'shutting-down', 'held-elsewhere'),
  conversationId: Schema.String,
  message: Schema.String,
}) {
  readonly status = 503
}

/**
 * A request the supervisor cannot take as it is (e.g. toggling a task's isolation, or an upstream
 * proxy that is no `http(s)://` proxy address or that this browser cannot chain through, issue #21).
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()('InvalidRequest', {
  reason: Schema.Literal('tasks-always-isolated', 'invalid-input', 'invalid-upstream-proxy'),
  message: Schema.String,
}) {
  readonly status = 400
}

/**
 * A person has the wheel of this errand from the live view (P1): the agent's acting verbs wait
 * for the hand-back. Reads still answer. The message tells a model what to do.
 *
 * @example
 * Effect.catchTag('PersonDriving', () => sessions.askForHelp(id, 'waiting for the person', 60_000))
 */
export class PersonDriving extends Schema.TaggedError<PersonDriving>()('PersonDriving', {
  reason: Schema.Literal('person-driving'),
  conversationId: Schema.String,
  message: Schema.String,
}) {
  /** HTTP status for the host: the browser is in use by someone else right now. */
  readonly status = 409
  static of(conversationId: string): PersonDriving {
    return new PersonDriving({
      reason: 'person-driving',
      conversationId,
      message:
        'A person is using this browser; wait for them to hand it back (ask for help — POST /v1/session/help or ' +
        'browser_request_help — to wait for the hand-back), then try again.',
    })
  }
}

/** Errors of the supervisor's public operations. */
export type SupervisorError = AllBusy | UnknownConversation | ErrandUnavailable | InvalidRequest

/**
 * The XState inspector could not be switched on (V3): its port is taken, or its page would not
 * open. Errands are not affected; the switch stays off.
 *
 * @example
 * new InspectorUnavailable({ reason: 'port-in-use', message: 'Port 7778 on 127.0.0.1 is in use; …' }).status // 503
 */
export class InspectorUnavailable extends Schema.TaggedError<InspectorUnavailable>()('InspectorUnavailable', {
  reason: Schema.Literal('port-in-use', 'open-failed'),
  message: Schema.String,
}) {
  readonly status = 503
}

/**
 * A question for the person (P4, `questions.ts`) that is no longer waiting: it was answered, its time ran out,
 * or the errand that asked stopped waiting.
 *
 * @example
 * new QuestionNotFound({ reason: 'not-waiting', message: '…' }).status // 404
 */
export class QuestionNotFound extends Schema.TaggedError<QuestionNotFound>()('QuestionNotFound', {
  reason: Schema.Literal('not-waiting'),
  message: Schema.String,
}) {
  readonly status = 404
}
