/**
 * Where errands run when `ERRANDS_CDP_URL` is set (R2): a new context of the DevTools browser
 * there when it gives one; otherwise our own browser here, said once in health. The person's
 * main context always stays in our own browser (R3, L6).
 *
 * At start-up the endpoint is probed by making (and closing) one context. If it cannot be
 * reached, or refuses `Target.createBrowserContext` (some cloud endpoints only hand out one
 * fixed context), every errand runs locally from then on. Later, if opening a remote context
 * fails, the runtime falls back the same way (once, with one health message).
 *
 * Every other call goes to the runtime that owns the context.
 *
 * @example
 * const routed = yield* makeRoutedRuntime(local, { cdpUrl, policy, log, deadlineMs: 30_000, notes })
 * routed.describe() // { kind: 'cdp', where: 'remote', remote: { endpoint: 'http://127.0.0.1:9222', state: 'connected'
 * } }
 */
import { describeTarget, type GuardPolicy } from '@errands/guard'
import {
  InvalidUpstreamProxy,
  RuntimeError,
  routeFiles,
  routePages,
  type ContextId,
  type Cookie,
  type OpenContextSpec,
  type RuntimeEvent,
  type RuntimeShape,
  type SessionLabel,
} from '@errands/runtime'
import { Clock, Effect, Option, type Scope } from 'effect'
import type { ChromiumRuntime } from '../ChromiumRuntime.ts'
import { toRuntimeError } from '../failures.ts'
import { RemoteRuntime } from './RemoteRuntime.ts'

/** How the routed runtime is set up. */
export interface RoutedOptions {
  readonly cdpUrl: string
  readonly policy: GuardPolicy
  readonly log: (line: string) => void
  readonly deadlineMs: number
  /** Where the one fallback message goes (the host's health log, V2). */
  readonly notes: RoutedNotes
}

/** Takes a message for the person (the supervisor's `HealthLog` is one). */
export interface RoutedNotes {
  readonly add: (message: { readonly at: number; readonly level: 'warning'; readonly text: string }) => void
}

/** Where errands run: our own browser (`local`) or the DevTools browser (`remote`), and its address and state. */
export interface RoutedReport {
  readonly kind: string
  readonly where: 'local' | 'remote'
  readonly remote: { readonly endpoint: string; readonly state: 'connected' | 'fallback' }
}

/** A runtime (its pages through `pages`, routed like every call) and a report of where errands run. */
export interface RoutedRuntime extends RuntimeShape {
  readonly describe: () => RoutedReport
}

/** Why a remote browser can't be used, in words (no path, no query: L7). */
const why = (error: unknown): string => toRuntimeError('', error).message.replace(/^: /, '').slice(0, 200)

/**
 * Builds the routed runtime over our own (local) runtime. Scoped: the remote connection closes
 * with the scope (the remote browser keeps running; only our contexts go).
 *
 * @example
 * const runtime = yield* makeRoutedRuntime(chromium, options)
 */
export const makeRoutedRuntime = (
  local: ChromiumRuntime,
  options: RoutedOptions,
): Effect.Effect<RoutedRuntime, never, Scope.Scope> =>
  Effect.gen(function* () {
    const endpoint = describeTarget(options.cdpUrl)
    const listeners = new Set<(event: RuntimeEvent) => void>()
    const forward = (event: RuntimeEvent) => {
      for (const l of [...listeners]) l(event)
    }
    let state: 'connected' | 'fallback' = 'fallback'
    let remote: RemoteRuntime | undefined

    // Runs at most once per run: after the probe failed, or on the one way back from remote to
    // local (after which nothing is remote any more) — so health says it once.
    const fallBack = (reason: string) =>
      Effect.gen(function* () {
        state = 'fallback'
        const at = yield* Clock.currentTimeMillis
        const text =
          `The DevTools browser at ${endpoint} cannot make browser contexts (${reason}); errands run in ` +
          `our own browser here.`
        options.notes.add({ at, level: 'warning', text })
        options.log(text)
      })

    // The probe: connect, make one context, close it.
    const probe = yield* Effect.either(
      Effect.tryPromise(async () => {
        const r = await RemoteRuntime.connect(options.cdpUrl, options)
        try {
          const id = await Effect.runPromise(
            r.openContext({ errandId: 'probe', label: { reason: 'task', lentSites: [] } }),
          )
          await Effect.runPromise(r.closeContext(id))
          return r
        } catch (error) {
          await Effect.runPromise(r.shutdown)
          throw error
        }
      }),
    )
    if (probe._tag === 'Right') {
      remote = probe.right
      state = 'connected'
      yield* remote.subscribe(forward)
      options.log(`errands run in the DevTools browser at ${endpoint}`)
    } else {
      yield* fallBack(why(probe.left.error))
    }
    yield* local.subscribe(forward)
    yield* Effect.addFinalizer(() => Effect.suspend(() => (remote ? remote.shutdown : Effect.void)))

    const on = (contextId: ContextId): RuntimeShape => (remote?.owns(contextId) ? remote : local)

    const openContext = (spec: OpenContextSpec) =>
      Effect.gen(function* () {
        // An errand with an upstream proxy runs in our own Chromium, behind the egress that chains
        // it: a remote DevTools browser cannot take a proxy (issue #21, docs/containment.md).
        if (state === 'connected' && remote !== undefined && spec.upstreamProxy === undefined) {
          const opened = yield* Effect.either(remote.openContext(spec))
          if (opened._tag === 'Right') return opened.right
          yield* fallBack(opened.left.message)
          const gone = remote
          remote = undefined
          yield* gone.shutdown
        }
        return yield* local.openContext(spec)
      })

    const routed: RoutedRuntime = {
      get kind() {
        return state === 'connected' ? 'cdp' : local.kind
      },
      mainContext: local.mainContext,
      openContext,
      closeContext: (id) => on(id).closeContext(id),
      isOpen: (id) => on(id).isOpen(id),
      storageState: (id) => on(id).storageState(id),
      addCookies: (id, cookies: ReadonlyArray<Cookie>) => on(id).addCookies(id, cookies),
      removeCookies: (id, which) => on(id).removeCookies(id, which),
      clearOrigins: (id, which) => on(id).clearOrigins(id, which),
      tabs: (id) => on(id).tabs(id),
      openTab: (id, url) => on(id).openTab(id, url),
      activateTab: (id, tab) => on(id).activateTab(id, tab),
      closeTab: (id, tab) => on(id).closeTab(id, tab),
      navigate: (id, tab, url) => on(id).navigate(id, tab, url),
      setLabel: (id, label: SessionLabel) => on(id).setLabel(id, label),
      freeze: (id) => on(id).freeze(id),
      thaw: (id) => on(id).thaw(id),
      snapshot: (id) => on(id).snapshot(id),
      // A crashed context is no longer held by either: ask both (ids never collide).
      lastWords: (id) =>
        remote
          ? Effect.flatMap(remote.lastWords(id), (o) => (Option.isSome(o) ? Effect.succeed(o) : local.lastWords(id)))
          : local.lastWords(id),
      devtools: (id) => (remote?.owns(id) ? remote.devtools(id) : local.devtools(id)),
      // Both browsers paint their pages: the live view and the frame verb stream either.
      screencast: (id, tab, options) =>
        remote?.owns(id) ? remote.screencast(id, tab, options) : local.screencast(id, tab, options),
      // The page verbs, JavaScript dialogs included (#22), go to whichever browser holds the errand.
      pages: routePages((id) => (remote?.owns(id) ? remote.pages : local.pages)),
      files: routeFiles((id) => (remote?.owns(id) ? remote.files : local.files), local.files),
      // A remote browser's requests are not ours to rewrite: a password is filled in our own browser only (W3).
      secrets: {
        fill: (id, tab, fill) =>
          remote?.owns(id)
            ? Effect.fail(
                new RuntimeError({
                  reason: 'unavailable',
                  message: 'This errand runs in a remote DevTools browser, whose requests the engine cannot rewrite.',
                }),
              )
            : local.secrets.fill(id, tab, fill),
        counts: () => local.secrets.counts(),
      },
      setUpstreamProxy: (id, proxy) =>
        remote?.owns(id)
          ? Effect.fail(
              new InvalidUpstreamProxy({
                reason: 'unsupported',
                message:
                  'This errand runs in a remote DevTools browser, which cannot chain through a proxy; open a new ' +
                  'session with X-Browser-Proxy instead.',
              }),
            )
          : local.setUpstreamProxy(id, proxy),
      subscribe: (listener) =>
        Effect.sync(() => {
          listeners.add(listener)
          return () => void listeners.delete(listener)
        }),
      shutdown: Effect.suspend(() => Effect.zipRight(remote ? remote.shutdown : Effect.void, local.shutdown)),
      describe: () => ({
        kind: state === 'connected' ? 'cdp' : local.kind,
        where: state === 'connected' ? 'remote' : 'local',
        remote: { endpoint, state },
      }),
    }
    return routed
  })
