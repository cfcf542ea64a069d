/**
 * The supervisor's side of the session boundary (docs/architecture.md, "The seam"; ADR 0044): the `Sessions`
 * service of @errands/sessions over one supervisor. Every verb is the supervisor's own operation but `resolve`,
 * built here from `open` and `drive`; the faces never see the rest of the supervisor (settle, sweep, shutdown,
 * snapshot amendments), which the engine's own parts call.
 *
 * @example
 * Effect.provide(program, sessionsLayer.pipe(Layer.provideMerge(testSupervisor())))
 */
import { type Conversation, SESSION_VERBS, Sessions, type SessionsShape } from '@errands/sessions'
import { Effect, Layer } from 'effect'
import type { SupervisorShape } from './shape.ts'
import { Supervisor } from './Supervisor.ts'

/**
 * The session verbs over one supervisor: the only place they are implemented.
 *
 * @example
 * const sessions = makeSessions(yield* Supervisor)
 */
export const makeSessions = (supervisor: SupervisorShape): SessionsShape => {
  const resolve = (conversation: Conversation) =>
    conversation.upstreamProxy !== undefined
      ? Effect.zipRight(supervisor.open(conversation), supervisor.drive(conversation.id))
      : supervisor
          .drive(conversation.id)
          .pipe(
            Effect.catchTag('UnknownConversation', () =>
              Effect.zipRight(supervisor.open(conversation), supervisor.drive(conversation.id)),
            ),
          )
  // Only the boundary's verbs, so the object a face holds has nothing else of the supervisor on it.
  const verbs: Record<string, unknown> = { resolve }
  for (const verb of SESSION_VERBS) if (verb !== 'resolve') verbs[verb] = supervisor[verb]
  return verbs as unknown as SessionsShape
}

/**
 * The session service over the supervisor in context. Several hosts in one process each build their own from
 * their own supervisor (`Layer.fresh` where one layer value is shared).
 *
 * @example
 * sessionsLayer.pipe(Layer.provideMerge(Supervisor.layer({ settings })))
 */
export const sessionsLayer: Layer.Layer<Sessions, never, Supervisor> = Layer.effect(
  Sessions,
  Effect.map(Supervisor, makeSessions),
)
