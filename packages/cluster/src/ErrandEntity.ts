/**
 * The errand as an entity of `@effect/cluster` (issue #16, K1): one entity per session key —
 * the conversation id `session:<key>` of the host — so the cluster's sharding decides which
 * runner (a host process with its own Chromium) owns each errand, and a call to any host
 * reaches the owner through the cluster's messaging.
 *
 * One RPC carries every page verb of the host (`Browsing`, B3) by name with its arguments after
 * the target; the owner runs the very same `Browsing` call a single host runs (one path, A3).
 * `Heal` makes the entity arrive on its owner at once, which reopens an errand whose previous
 * runner died (K3).
 * Neither is persisted: a page call is answered now or fails in words; nothing is replayed
 * later into a browser that moved on.
 *
 * @example
 * const client = yield* Errand.client
 * const reply = yield* client('task-42').Call({ verb: 'url', args: [] })
 */
import { Entity } from '@effect/cluster'
import { Rpc } from '@effect/rpc'
import { BlockedByPolicy, NoDialog, PageError, TabNotFound, type BrowsingShape } from '@errands/host'
import { AllBusy, ErrandUnavailable, InvalidRequest, UnknownConversation } from '@errands/supervisor'
import { Schema } from 'effect'

/**
 * The page verbs a session key's owner answers — every method of `BrowsingShape`.
 *
 * @example
 * Schema.is(Verb)('navigate') // true
 */
export const Verb = Schema.Literal(
  'navigate', 'url', 'text', 'html', 'screenshot', 'click', 'fill', 'scroll', 'back', 'forward', 'reload', 'frame', 'state',
  'input', 'viewport', 'tabs', 'openTab', 'activateTab', 'closeTab', 'task', 'release', 'dialog',
)

/** A verb's name. @example const v: Verb = 'tabs' */
export type Verb = typeof Verb.Type

// Compile-time check: the list above is exactly the host's verbs.
// `onPage` takes a function, which no message can carry: it runs only where the key is owned.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never
const _everyVerb: Same<Verb, Exclude<keyof BrowsingShape, 'onPage'>> = true
void _everyVerb

/**
 * What a page call can fail with, carried back to the caller as the same typed errors (so the
 * HTTP status and the message a model reads are the owner's).
 *
 * @example
 * Schema.is(CallError)(AllBusy.of(4)) // true
 */
export const CallError = Schema.Union(AllBusy, ErrandUnavailable, InvalidRequest, UnknownConversation, BlockedByPolicy, PageError, TabNotFound, NoDialog)

/**
 * The errand entity. The entity id is the session key.
 *
 * @example
 * Errand.toLayer(handlers)
 */
export const Errand = Entity.make('Errand', [
  Rpc.make('Call', {
    payload: { verb: Verb, args: Schema.Array(Schema.Unknown) },
    // Page results are plain data (strings, numbers, bytes of a screenshot or frame): the
    // transport's msgpack carries them as they are.
    success: Schema.Unknown,
    error: CallError,
  }),
  Rpc.make('Heal', {
    /** The runner that held it and is gone (`host:port`), for health's words. */
    payload: { from: Schema.String },
    success: Schema.Struct({ lifecycle: Schema.String }),
    error: CallError,
  }),
  /**
   * The person took a site back (`site`) or signed out of every site (`null`) on another host:
   * the runner holding this errand does the same for everything open there (L5). The entity id
   * only picks the runner.
   */
  Rpc.make('TakeBack', {
    payload: { site: Schema.NullOr(Schema.String) },
    success: Schema.Struct({
      runner: Schema.String,
      /** The owner's report, or why it failed in its words. */
      report: Schema.Unknown,
      failed: Schema.NullOr(Schema.String),
    }),
  }),
])
