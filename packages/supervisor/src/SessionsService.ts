/**
 * The one session service every face goes through (issue #24, ADR 0027): HTTP, MCP, DevTools,
 * the live view and the Daily tools open, drive, view, park, resume and close a conversation's
 * errand through `Sessions`, never through the `Supervisor` itself. It is built once, over the
 * supervisor, here; a cluster wraps this same service (its owners act on their errands through
 * it), so what a face asks is what the owner does.
 *
 * What stays the supervisor's are the things that span errands and are no session: capacity,
 * health, settle, sweep, shutdown, snapshot amendments (lending) and the inspector.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const sessions = yield* Sessions
 *   const binding = yield* sessions.resolve({ id: 'session:task-42', kind: 'task' })
 *   yield* sessions.undrive('session:task-42')
 *   yield* sessions.park('session:task-42')
 * })
 * Effect.provide(program, Sessions.layer.pipe(Layer.provideMerge(testSupervisor())))
 */
import { Context, Effect, Layer } from 'effect'
import type { SupervisorError } from './errors.ts'
import type { SupervisorShape } from './shape.ts'
import { Supervisor } from './Supervisor.ts'
import type { Binding, Conversation } from './types.ts'

/** The supervisor's operations that act on one conversation's errand, or follow them. */
type SessionVerbs = Pick<
  SupervisorShape,
  | 'open'
  | 'use'
  | 'drive'
  | 'undrive'
  | 'taskChanged'
  | 'chatDeleted'
  | 'setOwnBrowser'
  | 'watch'
  | 'unwatch'
  | 'park'
  | 'resume'
  | 'release'
  | 'view'
  | 'list'
  | 'onChange'
  | 'contextOf'
  | 'lastSnapshot'
  | 'setUpstreamProxy'
  | 'adopt'
  | 'takeWheel'
  | 'handBack'
  | 'personDriving'
  | 'askForHelp'
  | 'onHandBack'
  | 'asked'
  | 'answered'
>

/**
 * The session verbs. Conversation ids are the supervisor's (`session:<key>` for an agent's
 * session, `chat:<id>` for a chat): the faces map their own keys onto them.
 */
export interface SessionsShape extends SessionVerbs {
  /**
   * Starts driving the conversation's errand, opening it as `conversation` says when it is not
   * known yet, resuming it when parked and healing it when crashed; pair with `undrive`. A
   * conversation that names an upstream proxy is opened first, which takes the proxy when it
   * opens the errand (issue #21) and changes nothing for one already open.
   */
  readonly resolve: (conversation: Conversation) => Effect.Effect<Binding, SupervisorError>
}

/**
 * The session verbs by name. The rule in scripts/sessionPath.test.ts refuses a face that calls
 * one of them on the `Supervisor` instead of on this service.
 *
 * @example
 * SESSION_VERBS.includes('park') // true
 */
export const SESSION_VERBS: ReadonlyArray<keyof SessionsShape> = [
  'open',
  'resolve',
  'use',
  'drive',
  'undrive',
  'taskChanged',
  'chatDeleted',
  'setOwnBrowser',
  'watch',
  'unwatch',
  'park',
  'resume',
  'release',
  'view',
  'list',
  'onChange',
  'contextOf',
  'lastSnapshot',
  'setUpstreamProxy',
  'adopt',
  'takeWheel',
  'handBack',
  'personDriving',
  'askForHelp',
  'onHandBack',
  'asked',
  'answered',
]

/**
 * The session verbs over one supervisor: the only place they are implemented.
 *
 * @example
 * const sessions = makeSessions(yield* Supervisor)
 */
export const makeSessions = (supervisor: SupervisorShape): SessionsShape => ({
  open: supervisor.open,
  resolve: (conversation) =>
    conversation.upstreamProxy !== undefined
      ? Effect.zipRight(supervisor.open(conversation), supervisor.drive(conversation.id))
      : supervisor
          .drive(conversation.id)
          .pipe(
            Effect.catchTag('UnknownConversation', () =>
              Effect.zipRight(supervisor.open(conversation), supervisor.drive(conversation.id)),
            ),
          ),
  use: supervisor.use,
  drive: supervisor.drive,
  undrive: supervisor.undrive,
  taskChanged: supervisor.taskChanged,
  chatDeleted: supervisor.chatDeleted,
  setOwnBrowser: supervisor.setOwnBrowser,
  watch: supervisor.watch,
  unwatch: supervisor.unwatch,
  park: supervisor.park,
  resume: supervisor.resume,
  release: supervisor.release,
  view: supervisor.view,
  list: supervisor.list,
  onChange: supervisor.onChange,
  contextOf: supervisor.contextOf,
  lastSnapshot: supervisor.lastSnapshot,
  setUpstreamProxy: supervisor.setUpstreamProxy,
  adopt: supervisor.adopt,
  takeWheel: supervisor.takeWheel,
  handBack: supervisor.handBack,
  personDriving: supervisor.personDriving,
  askForHelp: supervisor.askForHelp,
  onHandBack: supervisor.onHandBack,
  asked: supervisor.asked,
  answered: supervisor.answered,
})

/**
 * The session service (`@errands/supervisor/Sessions`).
 *
 * @example
 * const sessions = yield* Sessions
 * const view = yield* sessions.view('session:task-42')
 */
export class Sessions extends Context.Tag('@errands/supervisor/Sessions')<Sessions, SessionsShape>() {
  /**
   * Over the supervisor in context. Several hosts in one process each build their own from
   * their own supervisor (`Layer.fresh` where one layer value is shared).
   *
   * @example
   * Sessions.layer.pipe(Layer.provideMerge(Supervisor.layer({ settings })))
   */
  static readonly layer: Layer.Layer<Sessions, never, Supervisor> = Layer.effect(
    Sessions,
    Effect.map(Supervisor, makeSessions),
  )

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
