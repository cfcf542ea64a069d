/**
 * The host's page verbs in cluster mode: a session's call goes to its errand entity, wherever
 * the cluster's sharding put it (this runner included — the cluster delivers that locally), and
 * the person's main context stays this host's own. The HTTP layer, the live view and every
 * other caller keep using `Browsing` and do not know the cluster exists.
 *
 * @example
 * const browsing = forwardingBrowsing(local, yield* Errand.client)
 * yield* browsing.url(sessionTarget(key)) // answered by the key's owner
 */
import type { BrowsingError, BrowsingShape, Target } from '@errands/host'
import { PageError, type SessionKey } from '@errands/host'
import { Effect } from 'effect'
import type { Verb } from './ErrandEntity.ts'

/** The slice of the entity's client the forwarder uses. */
export interface ErrandClient {
  (key: string): {
    readonly Call: (payload: { readonly verb: Verb; readonly args: ReadonlyArray<unknown> }) => Effect.Effect<unknown, BrowsingError | { readonly _tag: string }>
  }
}

/** Cluster-side failures (mailbox full, runner moving, storage) in words a model can act on. */
const unreachable = (e: { readonly _tag: string }): PageError =>
  new PageError({
    reason: 'unavailable',
    message: `The host that holds this session could not be reached (${e._tag}); it may be moving to another host — try again in a few seconds.`,
  })

const BROWSING_ERRORS = new Set(['AllBusy', 'ErrandUnavailable', 'InvalidRequest', 'UnknownConversation', 'BlockedByPolicy', 'PageError', 'TabNotFound', 'NoDialog'])

/**
 * Browsing over the cluster: session targets through the entity, the main context locally.
 *
 * @example
 * Layer.succeed(Browsing, forwardingBrowsing(local, client))
 */
export const forwardingBrowsing = (local: BrowsingShape, client: ErrandClient): Omit<BrowsingShape, 'onPage'> => {
  const call = <A>(key: SessionKey, verb: Verb, args: ReadonlyArray<unknown>) =>
    client(key).Call({ verb, args }).pipe(
      Effect.mapError((e): BrowsingError => (BROWSING_ERRORS.has(e._tag) ? (e as BrowsingError) : unreachable(e))),
    ) as Effect.Effect<A, BrowsingError>

  /** A verb on a target: the main context here, a session at its owner. */
  const onTarget = <V extends Verb>(verb: V) =>
    ((target: Target, ...rest: ReadonlyArray<unknown>) =>
      target._tag === 'main'
        ? (local[verb] as (t: Target, ...r: ReadonlyArray<unknown>) => Effect.Effect<unknown, BrowsingError>)(target, ...rest)
        : call(target.key, verb, rest)) as unknown as BrowsingShape[V]

  return {
    navigate: onTarget('navigate'),
    url: onTarget('url'),
    text: onTarget('text'),
    html: onTarget('html'),
    screenshot: onTarget('screenshot'),
    click: onTarget('click'),
    fill: onTarget('fill'),
    scroll: onTarget('scroll'),
    back: onTarget('back'),
    forward: onTarget('forward'),
    reload: onTarget('reload'),
    frame: onTarget('frame'),
    state: onTarget('state'),
    input: onTarget('input'),
    viewport: onTarget('viewport'),
    tabs: onTarget('tabs'),
    openTab: onTarget('openTab'),
    activateTab: onTarget('activateTab'),
    closeTab: onTarget('closeTab'),
    dialog: onTarget('dialog'),
    task: (key, status) =>
      Effect.catchAll(call<{ readonly lifecycle: string }>(key, 'task', [status]), (e) =>
        e._tag === 'UnknownConversation' ? Effect.fail(e) : Effect.die(e)),
    release: (key) => Effect.orDie(call<void>(key, 'release', [])),
  }
}

/**
 * Runs one forwarded verb on the owner's own Browsing (the entity's handler).
 *
 * @example
 * yield* runVerb(local, key, 'navigate', ['http://127.0.0.1:3000/'])
 */
export const runVerb = (local: Omit<BrowsingShape, 'onPage'>, key: SessionKey, verb: Verb, args: ReadonlyArray<unknown>): Effect.Effect<unknown, BrowsingError> => {
  if (verb === 'task' || verb === 'release') {
    return (local[verb] as (k: SessionKey, ...r: ReadonlyArray<unknown>) => Effect.Effect<unknown, BrowsingError>)(key, ...args)
  }
  const f = local[verb] as (t: Target, ...r: ReadonlyArray<unknown>) => Effect.Effect<unknown, BrowsingError>
  return f({ _tag: 'session', key }, ...args)
}
