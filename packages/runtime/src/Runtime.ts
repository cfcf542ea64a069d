import { Context, type Effect, type Option } from 'effect'
import type { ContextNotFound, RuntimeError } from './errors.ts'
import type { FileVerbs } from './files.ts'
import type { PageVerbs } from './pages.ts'
import type { Screencast, ScreencastOptions } from './screencast.ts'
import type { SecretVerbs } from './secrets.ts'
import type { InvalidUpstreamProxy, UpstreamProxy } from './upstream.ts'
import type {
  ContextId,
  Cookie,
  DevToolsTarget,
  OpenContextSpec,
  RuntimeEvent,
  SessionLabel,
  Snapshot,
  StorageState,
  TabInfo,
} from './types.ts'

/** Errors every context-scoped call can fail with. */
export type ContextError = RuntimeError | ContextNotFound

/**
 * The seam between the supervisor and a browser. A runtime holds browser handles and nothing
 * about policy: who may see what is decided above it.
 *
 * Contract every implementation keeps (tested in each runtime's suite):
 * - `openContext` returns a context that shares nothing with any other context.
 * - `closeContext` is idempotent: closing a closed or unknown context succeeds.
 * - a snapshot's `storage` (what lending moves) never includes IndexedDB or passkeys (L4); the
 *   errand's own IndexedDB, when the runtime reads it, is beside it (E7).
 * - Events are delivered to every subscriber in the order they happened.
 */
export interface RuntimeShape {
  /** `"memory"`, `"chromium"`, `"cdp"` … — shown in health. */
  readonly kind: string
  /** The person's main context id (always open while the runtime is). */
  readonly mainContext: ContextId
  readonly openContext: (spec: OpenContextSpec) => Effect.Effect<ContextId, RuntimeError>
  readonly closeContext: (contextId: ContextId) => Effect.Effect<void>
  readonly isOpen: (contextId: ContextId) => Effect.Effect<boolean>
  readonly storageState: (contextId: ContextId) => Effect.Effect<StorageState, ContextError>
  readonly addCookies: (contextId: ContextId, cookies: ReadonlyArray<Cookie>) => Effect.Effect<void, ContextError>
  /** Removes every cookie the predicate accepts; returns how many were removed. */
  readonly removeCookies: (
    contextId: ContextId,
    which: (cookie: Cookie) => boolean,
  ) => Effect.Effect<number, ContextError>
  /** Removes localStorage of every origin the predicate accepts. */
  readonly clearOrigins: (contextId: ContextId, which: (origin: string) => boolean) => Effect.Effect<void, ContextError>
  readonly tabs: (contextId: ContextId) => Effect.Effect<ReadonlyArray<TabInfo>, ContextError>
  readonly openTab: (contextId: ContextId, url: string) => Effect.Effect<TabInfo, ContextError>
  readonly activateTab: (contextId: ContextId, tabId: string) => Effect.Effect<void, ContextError>
  readonly closeTab: (contextId: ContextId, tabId: string) => Effect.Effect<void, ContextError>
  readonly navigate: (contextId: ContextId, tabId: string, url: string) => Effect.Effect<TabInfo, ContextError>
  readonly setLabel: (contextId: ContextId, label: SessionLabel) => Effect.Effect<void, ContextError>
  /**
   * Storage (cookies, localStorage), the tabs' URLs in order with their sessionStorage, and the
   * errand's own IndexedDB where the runtime reads it (E7); `takenAt` is filled in by the caller's clock.
   */
  readonly snapshot: (contextId: ContextId) => Effect.Effect<Omit<Snapshot, 'takenAt'>, ContextError>
  /**
   * What a context that crashed on its own held at that moment — its storage and its tabs' URLs —
   * for its heal (H2). A renderer's death leaves the browser and the context's storage alive, so
   * the runtime reads them before it closes the context; a heal from these loses nothing but the
   * crashed page's own memory. Read once; none when nothing could be read (the whole browser
   * died, or the read failed or was already taken).
   */
  readonly lastWords: (contextId: ContextId) => Effect.Effect<Option.Option<Omit<Snapshot, 'takenAt'>>>
  /**
   * Freezes every page of an errand context and every page it opens until {@link thaw}: their
   * lifecycle frozen (no task, timer or frame runs), their storage and tabs untouched — the first
   * step of setting an errand aside (docs/parking.md). Idempotent.
   */
  readonly freeze: (contextId: ContextId) => Effect.Effect<void, ContextError>
  /** Sets the pages of a frozen context active again, as they were. Idempotent. */
  readonly thaw: (contextId: ContextId) => Effect.Effect<void, ContextError>
  /** Listens to runtime events; returns the way to stop listening. */
  readonly subscribe: (listener: (event: RuntimeEvent) => void) => Effect.Effect<() => void>
  /**
   * The browser DevTools endpoint and browser context id behind an errand context (A1), for the
   * engine's DevTools proxy only. Absent in runtimes without a real browser (the memory runtime).
   */
  readonly devtools?: ((contextId: ContextId) => Effect.Effect<DevToolsTarget, ContextError>) | undefined
  /**
   * Chains an errand context's connections through an upstream proxy from now on (issue #21;
   * `undefined`: the runtime's default, or none). Absent in runtimes whose browser cannot take a
   * proxy; a runtime that has it but cannot honour it for this context fails with
   * `InvalidUpstreamProxy('unsupported')` — never quietly connects direct.
   */
  readonly setUpstreamProxy?:
    | ((
        contextId: ContextId,
        proxy: UpstreamProxy | undefined,
      ) => Effect.Effect<void, ContextError | InvalidUpstreamProxy>)
    | undefined
  /**
   * Starts a screencast of a tab (`screencast.ts`): frames may reach `onFrame` before the effect
   * succeeds. Every runtime has one (the memory runtime paints when a test says so). The
   * screencast stops by itself when its tab or context closes.
   */
  readonly screencast: (
    contextId: ContextId,
    tabId: string,
    options: ScreencastOptions,
  ) => Effect.Effect<Screencast, ContextError>
  /**
   * The page verbs (`pages.ts`): read, act, history and viewport per tab, with failures in the
   * few kinds; and the whole-verb calls of the page the runtime owns (`pageOwner.ts`: the active
   * tab, the viewport, the input and cast locks), one runtime call per verb of a face.
   */
  readonly pages: PageVerbs
  /**
   * The errands' files folders (`files.ts`, issue #25): downloads land there, clients stage files
   * there for uploads. Every runtime has them (the memory runtime fakes them); a context without a
   * folder (the person's main context, a remote browser's) fails `invalid`.
   */
  readonly files: FileVerbs
  /**
   * Filling secrets with stand-ins that its request interception swaps for the value before the
   * wire (`secrets.ts`, W3). Absent in runtimes that cannot rewrite a request (the memory runtime,
   * a remote DevTools browser): the host then refuses to fill a password.
   */
  readonly secrets?: SecretVerbs | undefined
  /** Closes every context and the browsers behind them. Idempotent. */
  readonly shutdown: Effect.Effect<void>
}

/**
 * The runtime service.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const runtime = yield* Runtime
 *   const id = yield* runtime.openContext({ errandId: 'e1', label: { reason: 'task', lentSites: [] } })
 *   return yield* runtime.tabs(id)
 * })
 */
export class Runtime extends Context.Tag('@errands/runtime/Runtime')<Runtime, RuntimeShape>() {}
