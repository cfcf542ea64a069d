/**
 * The person's take-backs across the cluster (L5 in cluster mode): revoking a site or signing
 * out everywhere on any host reaches every errand of every runner. The host that gets the call
 * cleans its own open errands and every sealed record in the shared store — which includes the
 * last snapshots of errands open elsewhere and of a runner that is down (their rows are cleaned
 * while nobody runs them) — then the cluster-wide verb of its placement (placement.ts) has every
 * other live runner clean what it has open.
 *
 * A session's permission card and Allow go to its errand's entity through the placement
 * (placement.ts), as the single host's Person asks them (issue #24). A chat's conversation is
 * this host's own and stays here. What an agent asks of the person waits on the
 * errand's owner (askRpcs.ts, K4): a request for help whole, a sign-in question's waiting (its
 * card stays on this host, where the agent's call waits). The settings themselves need nothing here:
 * in a cluster they are one Postgres table (personSettings.ts).
 *
 * @example
 * Layer.effect(Person, clusterPerson) // over the host's own Person
 */
import { everywhere, Person, Placement, sessionKeyOf } from '@errands/host'
import { ErrandUnavailable, type SupervisorError } from '@errands/sessions'
import { Effect } from 'effect'
import { Errand } from './ErrandEntity.ts'

/** The owner's supervisor error as it is; the cluster's own failures in words. */
const asSupervisorError =
  (conversationId: string) =>
  (e: { readonly _tag: string }): SupervisorError =>
    e._tag === 'UnknownConversation'
      ? (e as SupervisorError)
      : new ErrandUnavailable({
          reason: 'open-failed',
          conversationId,
          message:
            `The host that holds this session could not be reached (${e._tag}); it may be moving to another ` +
            `host — try again in a few seconds.`,
        })

/**
 * The host's Person with take-backs that reach every runner.
 *
 * @example
 * const person = yield* clusterPerson
 */
export const clusterPerson = Effect.gen(function* () {
  const local = yield* Person
  const placement = yield* Placement
  const client = yield* Errand.client

  return Person.of({
    ...local,
    // The take-backs reach every runner through the cluster's placement (placement.ts): the cluster-wide verb.
    revoke: (site) => everywhere(placement, site, local.revoke(site)),
    signOutEverywhere: everywhere(placement, null, local.signOutEverywhere),
    // The card and Allow where the errand is (placement.ts), as the single host's Person asks them.
    ask: (conversationId, site) => {
      const key = sessionKeyOf(conversationId)
      return (key === undefined ? undefined : placement.ask(key, site)) ?? local.ask(conversationId, site)
    },
    // The person in the loop across hosts (K4, askRpcs.ts): a session's errand is read where it is
    // (a sign-in question reads its lent sites), and what an agent asks of the person waits there.
    // The list (`sessions`) stays this host's supervisor's: what this host holds (docs/cluster.md).
    view: (conversationId) => {
      const key = sessionKeyOf(conversationId)
      return key === undefined
        ? local.view(conversationId)
        : Effect.mapError(client(key).View({}), asSupervisorError(conversationId))
    },
    askForHelp: (conversationId, reason, timeoutMs) => {
      const key = sessionKeyOf(conversationId)
      return key === undefined
        ? local.askForHelp(conversationId, reason, timeoutMs)
        : Effect.mapError(client(key).Help({ reason, timeoutMs }), asSupervisorError(conversationId))
    },
    asked: (conversationId, ask) => {
      const key = sessionKeyOf(conversationId)
      return key === undefined
        ? local.asked(conversationId, ask)
        : Effect.mapError(client(key).Asked(ask), asSupervisorError(conversationId))
    },
    answered: (conversationId, id, outcome) => {
      const key = sessionKeyOf(conversationId)
      // Its end must reach the owner, or its errand keeps waiting: a few tries, then said in the log.
      return key === undefined
        ? local.answered(conversationId, id, outcome)
        : client(key)
            .Answered({ id, outcome })
            .pipe(
              Effect.retry({ times: 3 }),
              Effect.catchAll((e) =>
                Effect.logWarning(
                  `question ${id}: its end (${outcome}) could not reach the host that holds ${conversationId} ` +
                    `(${e._tag})`,
                ),
              ),
            )
    },
    allow: (conversationId, site) => {
      const key = sessionKeyOf(conversationId)
      return (key === undefined ? undefined : placement.allow(key, site)) ?? local.allow(conversationId, site)
    },
  })
})
