/**
 * The XState inspector switch (V3): one observer handed to the supervisor as its `inspect`
 * option, which forwards every errand actor's inspection events to a real `@statelyai/inspect`
 * inspector — only while it is switched on. Off (the default) it forwards nothing and holds no
 * port; it only remembers which actors are alive, so that switching on later shows them at once.
 *
 * Where the events go while on is an {@link InspectorOutlet}: normally the loopback relay of
 * `inspectorRelay.ts`, whose page embeds the Stately inspector (see docs/inspector.md).
 *
 * L7: every event passes {@link redactInspection} before it leaves — URLs become `[url]` and
 * fields that would hold cookies, storage or tabs become `[redacted]`. The machine's context
 * holds ids, counts and times only, so normally there is nothing to redact; this is the second
 * line, for an error message that quotes an address.
 *
 * @example
 * const inspector = yield* InspectorSwitch.make({ open: () => openInspectorRelay({ port: 7778 }) })
 * const supervisor = yield* makeSupervisor({ settings, inspect: inspector.inspect })
 * yield* inspector.set(true) // → { on: true, url: 'http://127.0.0.1:7778/', … }
 */
import { createInspector, type StatelyInspectionEvent } from '@statelyai/inspect'
import { Context, Effect, Layer, type Scope } from 'effect'
import type { ActorRefLike, InspectionEvent, Observer } from 'xstate'
import { type InspectorStatus, InspectorUnavailable } from '@errands/sessions'

/** What a `@statelyai/inspect` inspector sends to (the package does not export its `Adapter` type). */
export type InspectorAdapter = Parameters<typeof createInspector>[0]

/** Where inspection events go while the switch is on, and how a person opens it. */
export interface InspectorOutlet {
  /** A `@statelyai/inspect` adapter: receives the inspector's (already redacted) events. */
  readonly adapter: InspectorAdapter
  /** The page a person opens in a browser to see the inspector. */
  readonly url: string
  /** The WebSocket that carries the events (any Stately inspector client can connect here). */
  readonly events: string
  /** Where the viewer itself loads from (the Stately inspector web app). */
  readonly viewer: string
  /** Stops the outlet (closes its port and its viewers' connections). Idempotent. */
  readonly close: () => Promise<void>
}

/** How to build the switch. */
export interface InspectorSwitchOptions {
  /** Opens the outlet when switched on, e.g. `() => openInspectorRelay({ port: 7778 })`. */
  readonly open: () => Promise<InspectorOutlet>
  /** The viewer named in the status while off. Default: `https://stately.ai/inspect`. */
  readonly viewer?: string | undefined
  /** Switch on at once (`ERRANDS_INSPECT=on`). A failure is logged and kept in the status. */
  readonly on?: boolean | undefined
  /** Receives one line when switching on or off, or when switching on fails. */
  readonly log?: ((line: string) => void) | undefined
}

/** The switch as a service. */
export interface InspectorSwitchShape {
  /** Hand this to the supervisor (`SupervisorOptions.inspect`); it is the same object for the switch's life. */
  readonly inspect: Observer<InspectionEvent>
  readonly status: Effect.Effect<InspectorStatus>
  /** Switches on (opens the outlet, shows the live actors) or off (closes it). Idempotent. */
  readonly set: (on: boolean) => Effect.Effect<InspectorStatus, InspectorUnavailable>
}

/** The Stately inspector web app, which the relay's page embeds. */
export const STATELY_VIEWER = 'https://stately.ai/inspect'

// ---- L7: what leaves the process ----

/** Field names whose values are never shown: they would hold cookies, storage or tabs (with URLs). */
const SECRET_FIELDS = new Set([
  'cookies',
  'cookie',
  'storage',
  'storageState',
  'localStorage',
  'sessionStorage',
  'origins',
  'tabs',
  'headers',
  'token',
  'password',
])
/** `scheme://…` up to a quote, a backslash (JSON escapes stay intact), a space or an angle bracket. */
const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>\\]*/gi
const MAX_DEPTH = 12

/**
 * A string with every `scheme://…` address replaced by `[url]`.
 *
 * @example
 * redactText('net::ERR_FAILED at https://shop.test/basket?id=1') // 'net::ERR_FAILED at [url]'
 */
export const redactText = (text: string): string => text.replace(URL_PATTERN, '[url]')

const toPlain = (value: unknown, depth: number, ancestors: Set<object>): unknown => {
  switch (typeof value) {
    case 'string':
      return redactText(value)
    case 'number':
      return Number.isFinite(value) ? value : null
    case 'boolean':
      return value
    case 'bigint':
      return String(value)
    case 'object':
      break
    default:
      return undefined
  }
  if (value === null) return null
  if (ancestors.has(value)) return '[circular]'
  if (depth > MAX_DEPTH) return '[deep]'
  // XState's snapshots and actor refs know their JSON form (a ref becomes `{ id }`).
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function' && !(value instanceof Error)) {
    return toPlain((value as { toJSON: () => unknown }).toJSON(), depth + 1, ancestors)
  }
  ancestors.add(value)
  try {
    if (Array.isArray(value)) return value.map((v) => toPlain(v, depth + 1, ancestors) ?? null)
    if (value instanceof Set) return [...value].map((v) => toPlain(v, depth + 1, ancestors) ?? null)
    const out: Record<string, unknown> = {}
    const entries: Array<[string, unknown]> =
      value instanceof Map ? [...value.entries()].map(([k, v]) => [String(k), v]) : Object.entries(value)
    if (value instanceof Error) {
      out.name = value.name
      out.message = redactText(value.message)
    }
    for (const [k, v] of entries) {
      if (SECRET_FIELDS.has(k)) out[k] = '[redacted]'
      else {
        const plain = toPlain(v, depth + 1, ancestors)
        if (plain !== undefined) out[k] = plain
      }
    }
    return out
  } finally {
    ancestors.delete(value)
  }
}

/**
 * A Stately inspection event as plain JSON data with nothing secret in it (L7): addresses become
 * `[url]`, cookie/storage/tab fields `[redacted]`, cycles and very deep values are cut.
 *
 * @example
 * createInspector(adapter, { serialize: redactInspection })
 */
export const redactInspection = (event: StatelyInspectionEvent): StatelyInspectionEvent =>
  toPlain(event, 0, new Set()) as StatelyInspectionEvent

// ---- the switch ----

const parentOf = (ref: ActorRefLike) => (ref as { _parent?: ActorRefLike })._parent

const rootOf = (ref: ActorRefLike): ActorRefLike => {
  let r = ref
  for (let p = parentOf(r); p !== undefined; p = parentOf(r)) r = p
  return r
}

const isAlive = (ref: ActorRefLike) => (ref.getSnapshot() as { status?: string } | undefined)?.status === 'active'

/**
 * Builds the switch; closing the scope switches it off (the outlet's port closes).
 *
 * @example
 * const inspector = yield* makeInspectorSwitch({ open: () => openInspectorRelay({ port: 0 }) })
 */
export const makeInspectorSwitch = (
  options: InspectorSwitchOptions,
): Effect.Effect<InspectorSwitchShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const log = options.log ?? (() => undefined)
    const viewer = options.viewer ?? STATELY_VIEWER
    /** Every actor the supervisor's errands started and that may still be alive, in start order (parents first). */
    const actors = new Map<string, ActorRefLike>()
    let live:
      | { readonly inspector: ReturnType<typeof createInspector<InspectorAdapter>>; readonly outlet: InspectorOutlet }
      | undefined
    let lastError: string | null = null
    let pruneAt = 64
    const lock = yield* Effect.makeSemaphore(1)

    const prune = () => {
      for (const [id, ref] of actors) if (!isAlive(ref)) actors.delete(id)
      pruneAt = Math.max(64, actors.size * 2)
    }

    const inspect: Observer<InspectionEvent> = {
      next: (event) => {
        if (event.type === '@xstate.actor') {
          actors.set(event.actorRef.sessionId, event.actorRef)
          if (actors.size >= pruneAt) prune()
        } else if (event.type === '@xstate.snapshot' && (event.snapshot as { status?: string }).status !== 'active') {
          actors.delete(event.actorRef.sessionId)
        }
        // Off: nothing is forwarded, not even queued.
        live?.inspector.inspect.next?.(event)
      },
    }

    const status = Effect.sync((): InspectorStatus => {
      prune()
      const outlet = live?.outlet
      return {
        on: outlet !== undefined,
        url: outlet?.url ?? null,
        events: outlet?.events ?? null,
        viewer: outlet?.viewer ?? viewer,
        actors: actors.size,
        how:
          outlet !== undefined
            ? `Open ${outlet.url} in a browser: the Stately inspector there shows every errand actor, its state, ` +
              `context and events, live. Any Stately inspector client can also read ${outlet.events}.`
            : 'The inspector is off. Switch it on (ERRANDS_INSPECT=on at start, or PUT /v1/person/inspector with ' +
              '{"on":true} on the host), then open the page it names.',
        network:
          `The page and the event stream are local (127.0.0.1 only, switched off by default). The viewer ` +
          `inside the page is the Stately inspector web app, loaded from ${outlet?.viewer ?? viewer}: it needs ` +
          "internet access, and the errands' states are handed to it inside your browser. Offline, the events still " +
          'reach local WebSocket clients, but the page shows no chart.',
        error: lastError,
      }
    })

    const switchOn = Effect.gen(function* () {
      if (live !== undefined) return
      const outlet = yield* Effect.tryPromise({
        try: () => options.open(),
        catch: (e) =>
          e instanceof InspectorUnavailable
            ? e
            : new InspectorUnavailable({
                reason: 'open-failed',
                message: `The inspector could not be opened: ${redactText(e instanceof Error ? e.message : String(e))}`,
              }),
      }).pipe(
        Effect.tapError((e) =>
          Effect.sync(() => {
            lastError = e.message
            log(`errands inspector: not switched on — ${e.message}`)
          }),
        ),
      )
      const inspector = createInspector(outlet.adapter, { serialize: redactInspection })
      inspector.start()
      live = { inspector, outlet }
      lastError = null
      // Actors started while the switch was off are shown as they are now (registration with
      // their current snapshot); what they did meanwhile was never recorded and is not shown.
      prune()
      for (const ref of actors.values())
        inspector.inspect.next?.({ type: '@xstate.actor', actorRef: ref, rootId: rootOf(ref).sessionId })
      log(`errands inspector: on — open ${outlet.url}`)
    })

    const switchOff = Effect.gen(function* () {
      const current = live
      if (current === undefined) return
      live = undefined
      current.inspector.stop()
      yield* Effect.promise(() => current.outlet.close())
      log('errands inspector: off')
    })

    const set = (on: boolean) => lock.withPermits(1)(Effect.zipRight(on ? switchOn : switchOff, status))

    yield* Effect.addFinalizer(() => lock.withPermits(1)(switchOff))
    if (options.on === true) yield* Effect.ignore(set(true))
    return { inspect, status, set } satisfies InspectorSwitchShape
  })

/**
 * The inspector switch (`@errands/supervisor/InspectorSwitch`).
 *
 * @example
 * const inspector = yield* InspectorSwitch
 * yield* inspector.set(true)
 */
export class InspectorSwitch extends Context.Tag('@errands/supervisor/InspectorSwitch')<
  InspectorSwitch,
  InspectorSwitchShape
>() {
  /**
   * The switch as a scoped layer (off when the layer is released).
   *
   * @example
   * InspectorSwitch.layer({ open: () => openInspectorRelay({ port: 7778 }), on: true })
   */
  static layer(options: InspectorSwitchOptions): Layer.Layer<InspectorSwitch> {
    return Layer.scoped(InspectorSwitch, makeInspectorSwitch(options))
  }
}
