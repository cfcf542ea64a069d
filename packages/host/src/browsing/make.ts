/**
 * The host's page verbs over the supervisor and the runtime (B2–B6). One code path: a session
 * key becomes the conversation `session:<key>`, and every call drives that errand through the
 * supervisor — which opens it on first use, resumes it when it was parked, heals it when it
 * crashed, and never parks it while the call is in flight (B5). The key's drive lock makes N
 * simultaneous first calls open one context.
 *
 * @example
 * const browsing = yield* makeBrowsing({ policy, deadlineMs: 30_000 })
 * yield* browsing.navigate(sessionTarget(key), 'http://127.0.0.1:3000/')
 */
import { decideUrl, makeResolver, type Resolver } from '@errands/egress'
import { describeTarget, type GuardPolicy } from '@errands/guard'
import { Runtime, type ContextId, type Snapshot, type TabInfo, type UpstreamProxy } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { Supervisor, type Binding } from '@errands/supervisor'
import { Clock, Duration, Effect, Option, type Scope } from 'effect'
import type { Page } from 'playwright-core'
import { BlockedByPolicy, PageError, TabNotFound } from '../errors.ts'
import { conversationIdOf, type SessionKey } from '../sessionKey.ts'
import type { BrowsingError, BrowsingShape, Frame, PageSummary, SessionState, TabView, Target } from './Browsing.ts'
import { dialogView, NO_DIALOG_MESSAGE, NoDialog, orDialog, type DialogView } from './dialog.ts'
import { applyInput, fromRuntime, pageCall, readHtml, readText, scrollBy } from './pageCalls.ts'
import { Pages } from './Pages.ts'
import { Screencast } from './screencast.ts'
import { parseTabId, publicTabId, SessionBook, type HostSession } from './sessions.ts'

/** How the verbs behave. */
export interface BrowsingOptions {
  /** The containment policy (decided before any page call, so a refused URL touches nothing). */
  readonly policy: GuardPolicy
  /**
   * Resolves the names of URLs an agent navigates to, as the egress does (Chromium's
   * `--host-resolver-rules`, then the system): a name is judged by its addresses (G2, G3).
   * Default: the system resolver alone.
   */
  readonly resolve?: Resolver | undefined
  /** Deadline of one page call. */
  readonly deadlineMs: number
  /** A screencast nobody reads for this long stops (default 30 s). */
  readonly screencastIdleMs?: number | undefined
  /** How long `frame` waits for the first screencast frame before taking a screenshot (default 1.5 s). */
  readonly firstFrameMs?: number | undefined
}

/** What a verb works with: the session's record and the context it drives right now. */
interface Scope_ {
  readonly session: HostSession
  readonly contextId: ContextId
}

const ENDING = new Set(['done', 'unverified', 'stopped'])
const DEFAULT_ACTION_TIMEOUT = 10_000

/**
 * Builds the verbs; the scope stops every screencast when it closes.
 *
 * @example
 * const browsing = yield* makeBrowsing({ policy: defaultPolicy([{ port: 7777 }]), deadlineMs: 30_000 })
 */
export const makeBrowsing = (
  options: BrowsingOptions,
): Effect.Effect<BrowsingShape & { readonly book: SessionBook }, never, Supervisor | Runtime | Pages | SealedStore | Scope.Scope> =>
  Effect.gen(function* () {
    const supervisor = yield* Supervisor
    const runtime = yield* Runtime
    const pages = yield* Pages
    const store = yield* SealedStore
    const book = new SessionBook()
    const deadline = options.deadlineMs
    yield* Effect.addFinalizer(() => Effect.promise(() => book.stopAll()))

    const resolve = options.resolve ?? makeResolver([])
    // Judged on what the name resolves to, like /v1/fetch and the egress: `http://vm:7070/`
    // (/etc/hosts: 127.0.0.1) is refused like `http://127.0.0.1:7070/` (issue #21).
    const allowed = (url: string): Effect.Effect<void, BlockedByPolicy> =>
      Effect.flatMap(Effect.promise(() => decideUrl(url, options.policy, resolve)), (d) =>
        d.allow
          ? Effect.void
          : Effect.fail(new BlockedByPolicy({
              reason: 'blocked', rule: d.rule,
              message: `The containment policy refuses ${describeTarget(url)} (rule ${d.rule}: ${d.detail}); use another address.`,
            })))

    /**
     * Opens (first call), resumes (parked) or heals (crashed) the errand, and starts driving it.
     * A call that names an upstream proxy opens through `open`, which takes the proxy when it
     * opens the errand (issue #21) and changes nothing for one already open.
     */
    const bringUp = (session: HostSession, conversationId: string, upstreamProxy: UpstreamProxy | undefined): Effect.Effect<Binding, BrowsingError> =>
      session.driveLock.withPermits(1)(
        upstreamProxy !== undefined
          ? Effect.zipRight(supervisor.open({ id: conversationId, kind: 'task', upstreamProxy }), supervisor.drive(conversationId))
          : supervisor.drive(conversationId).pipe(
              Effect.catchTag('UnknownConversation', () =>
                Effect.zipRight(supervisor.open({ id: conversationId, kind: 'task' }), supervisor.drive(conversationId))),
            ),
      )

    /** Runs `f` on the target while driving it (sessions) or directly (the person's main context). */
    const withTarget = <A, E>(target: Target, f: (scope: Scope_) => Effect.Effect<A, E>): Effect.Effect<A, E | BrowsingError> => {
      if (target._tag === 'main') return f({ session: book.main, contextId: runtime.mainContext })
      const session = book.get(target.key)
      const conversationId = conversationIdOf(target.key)
      return Effect.acquireUseRelease(
        bringUp(session, conversationId, target.upstreamProxy),
        (binding) => {
          if (session.contextId !== binding.contextId) {
            // Parked and resumed, or healed: a new context; what was cached about the old one goes.
            session.contextId = binding.contextId
            session.active = undefined
          }
          return f({ session, contextId: binding.contextId })
        },
        () => supervisor.undrive(conversationId),
      )
    }

    /** A verb: the target, a safety-net deadline over bringing it up plus the call. */
    const verb = <A, E>(what: string, target: Target, f: (scope: Scope_) => Effect.Effect<A, E>) =>
      withTarget(target, f).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(deadline * 3),
          onTimeout: () => new PageError({ reason: 'timeout', message: `${what}: no answer within ${deadline * 3} ms; try again.` }),
        }),
      )

    const fitViewport = (session: HostSession, page: Page) =>
      Effect.suspend(() => {
        const want = session.viewport
        const have = page.viewportSize()
        if (want === undefined || (have?.width === want.width && have.height === want.height)) return Effect.void
        return pageCall('set viewport', deadline, () => page.setViewportSize(want))
      })

    const watchContext = (session: HostSession, contextId: ContextId) => {
      const context = pages.browserContextOf(contextId)
      if (context === undefined || session.watched.has(context)) return
      session.watched.add(context)
      // A popup becomes the active tab in the runtime: forget the cached one.
      context.on('page', () => {
        if (session.active?.contextId === contextId) session.active = undefined
      })
    }

    /** The active tab's page (a blank tab is opened when the session has none left). */
    const activePage = ({ session, contextId }: Scope_): Effect.Effect<{ readonly tabId: string; readonly page: Page }, PageError> =>
      Effect.gen(function* () {
        const cached = session.active
        if (cached && cached.contextId === contextId && !cached.page.isClosed() && pages.pageOf(contextId, cached.tabId) === cached.page) {
          return cached
        }
        watchContext(session, contextId)
        const tabs = yield* Effect.mapError(runtime.tabs(contextId), fromRuntime)
        const tab = tabs.find((t) => t.active) ?? tabs[0] ?? (yield* Effect.mapError(runtime.openTab(contextId, 'about:blank'), fromRuntime))
        const page = pages.pageOf(contextId, tab.id)
        if (page === undefined) return yield* new PageError({ reason: 'target-closed', message: 'The tab closed while the call ran; call again.' })
        session.active = { contextId, tabId: tab.id, page }
        yield* fitViewport(session, page)
        return session.active
      })

    /** The dialog the runtime holds for the verbs in a context, if any (#22). */
    const heldDialog = (session: HostSession, contextId: ContextId): DialogView | null => {
      const d = pages.pendingDialog?.(contextId)
      return d === undefined ? null : dialogView(d, (id) => publicTabId(session, id))
    }

    const summary = (session: HostSession, tabId: string, page: Page, contextId?: ContextId): Effect.Effect<PageSummary, PageError> => {
      // A held dialog blocks the page's scripts (its title too): say so instead of waiting.
      const dialog = contextId === undefined ? null : heldDialog(session, contextId)
      if (dialog !== null && dialog.tab === publicTabId(session, tabId)) return Effect.succeed({ url: page.url(), title: '', tab: dialog.tab, dialog })
      return Effect.map(pageCall('title', deadline, () => page.title()), (title) => ({ url: page.url(), title, tab: publicTabId(session, tabId) }))
    }

    const tabView = (session: HostSession, t: TabInfo): TabView => ({
      id: publicTabId(session, t.id), url: t.url, title: t.title, active: t.active, reason: t.session.reason, lentSites: t.session.lentSites,
    })

    const tabViews = ({ session, contextId }: Scope_) =>
      Effect.map(Effect.mapError(runtime.tabs(contextId), fromRuntime), (tabs) => tabs.map((t) => tabView(session, t)))

    /** A navigation-like call on the active page, then where it is. */
    const onActive = <A>(what: string, target: Target, run: (page: Page) => Promise<A>, navigation = false) =>
      verb(what, target, (scope) =>
        Effect.gen(function* () {
          const { tabId, page } = yield* activePage(scope)
          // An action that opens a dialog would wait for its answer: it returns with the dialog.
          yield* pageCall(what, deadline, () => orDialog(page, run(page)), navigation)
          return yield* summary(scope.session, tabId, page, scope.contextId)
        }))

    /** A read of the active page. */
    const read = <A>(what: string, target: Target, run: (page: Page) => Promise<A>) =>
      verb(what, target, (scope) => Effect.flatMap(activePage(scope), ({ page }) => pageCall(what, deadline, () => run(page))))

    /** A tab id of this session, or `TabNotFound` (another session's ids are never accepted). */
    const ownTab = (target: Target, publicId: string): Effect.Effect<string, TabNotFound> => {
      // A key without a record has never listed a tab: nothing of its own can match.
      const session = target._tag === 'main' ? book.main : book.peek(target.key)
      const tabId = session === undefined ? undefined : parseTabId(session, publicId)
      return tabId !== undefined
        ? Effect.succeed(tabId)
        : Effect.fail(new TabNotFound({ reason: 'unknown-tab', message: `This session has no tab ${publicId}; list its tabs with GET /v1/tabs.` }))
    }

    const navigationRefused = (e: PageError): PageError | BlockedByPolicy =>
      /ERR_BLOCKED_BY_CLIENT|blocked by policy/.test(e.message)
        ? new BlockedByPolicy({ reason: 'blocked', rule: 'guard', message: `The containment policy refused this navigation (${e.message}); use another address.` })
        : e

    const frame = (target: Target): Effect.Effect<Frame, BrowsingError> =>
      verb('frame', target, (scope) =>
        Effect.gen(function* () {
          const { session } = scope
          const { page } = yield* activePage(scope)
          const context = pages.browserContextOf(scope.contextId)
          const cast = yield* session.castLock.withPermits(1)(
            Effect.gen(function* () {
              const current = session.screencast
              if (current?.running && current.page === page) return current
              if (current) yield* Effect.promise(() => current.stop())
              if (context === undefined) return undefined
              const started = yield* pageCall('start screencast', deadline, () =>
                Screencast.start(context, page, {
                  idleMs: options.screencastIdleMs ?? 30_000,
                  onFrame: (f) => {
                    session.frameSeq++
                    session.lastFrameAt = f.at
                  },
                }))
              session.screencast = started
              return started
            }),
          )
          // A frame painted before a viewport change is stale: the screencast only sends a new one
          // when the page repaints, which a still page may never do. Wait a moment for a fresh
          // frame of the current size; otherwise a screenshot (always the current size) stands in.
          const size = page.viewportSize()
          const fits = (f: { width: number; height: number }) => size === null || (f.width === size.width && f.height === size.height)
          let painted = cast?.latest
          if (cast && (painted === undefined || !fits(painted))) {
            const next = yield* Effect.promise(() => cast.next(options.firstFrameMs ?? 1_500))
            painted = next !== undefined && fits(next) ? next : undefined
          }
          if (painted) return { data: painted.data, mime: 'image/jpeg', seq: session.frameSeq, at: painted.at, source: 'screencast' } satisfies Frame
          // Nothing painted yet (a page that never changes may send no frame): a screenshot stands in.
          const shot = yield* pageCall('screenshot', deadline, () => page.screenshot({ type: 'jpeg', quality: 70, timeout: deadline }))
          const at = yield* Clock.currentTimeMillis
          return { data: shot, mime: 'image/jpeg', seq: session.frameSeq, at, source: 'screenshot' } satisfies Frame
        }))

    /** What is, without opening, resuming or driving anything. */
    const state = (target: Target): Effect.Effect<SessionState, BrowsingError> =>
      Effect.gen(function* () {
        const session = target._tag === 'main' ? book.main : book.peek(target.key)
        const base = {
          input: { events: session?.inputEvents ?? 0 },
          frame: { seq: session?.frameSeq ?? 0, at: session?.lastFrameAt ?? null },
        }
        const conversationId = target._tag === 'session' ? conversationIdOf(target.key) : undefined
        const view = conversationId === undefined ? undefined : Option.getOrUndefined(yield* Effect.option(supervisor.view(conversationId)))
        const empty: SessionState = {
          ...base, lifecycle: view?.state ?? 'none', url: null, title: null, tabs: [], viewport: session?.viewport ?? null,
          lentSites: view?.lentSites ?? [], lastUsedAt: view?.lastUsedAt ?? null, dialog: null,
        }
        if (conversationId !== undefined && view === undefined) return empty
        const contextId = conversationId === undefined ? runtime.mainContext : supervisor.contextOf(conversationId)
        if (contextId === undefined) {
          if (view?.state !== 'parked') return empty
          // Parked: where it will come back to, from the sealed record (read, never resumed).
          const record = yield* Effect.option(Effect.flatten(store.get(conversationId!)))
          const snapshot: Snapshot | undefined = Option.isSome(record) ? record.value.snapshot : supervisor.lastSnapshot(conversationId!)
          return { ...empty, url: snapshot?.tabs.find((t) => t.active)?.url ?? snapshot?.tabs[0]?.url ?? null }
        }
        const dialog = heldDialog(session ?? book.main, contextId)
        const live = Effect.gen(function* () {
          const record = session ?? book.main
          const tabs = yield* Effect.mapError(runtime.tabs(contextId), fromRuntime)
          const active = tabs.find((t) => t.active) ?? tabs[0]
          const page = active ? pages.pageOf(contextId, active.id) : undefined
          return {
            ...empty,
            lifecycle: view?.state ?? 'main',
            url: active?.url ?? null,
            title: active?.title ?? null,
            tabs: tabs.map((t) => tabView(record, t)),
            viewport: page?.viewportSize() ?? session?.viewport ?? null,
            dialog,
          } satisfies SessionState
        })
        // The context may close while we look (parked by the sweep, released): report the view then.
        return yield* live.pipe(Effect.catchAll(() => Effect.succeed({ ...empty, dialog })))
      })

    const browsing: BrowsingShape & { readonly book: SessionBook } = {
      book,
      navigate: (target, url) =>
        Effect.zipRight(
          allowed(url),
          verb('navigate', target, (scope) =>
            Effect.gen(function* () {
              const { tabId, page } = yield* activePage(scope)
              yield* runtime.navigate(scope.contextId, tabId, url).pipe(Effect.mapError((e) => navigationRefused(fromRuntime(e))))
              // Committed; give the document a moment to be parsed, but never fail for a slow one.
              yield* Effect.ignore(pageCall('load', deadline, () => page.waitForLoadState('domcontentloaded', { timeout: deadline })))
              return yield* summary(scope.session, tabId, page)
            })),
        ),
      url: (target) => read('url', target, async (page) => ({ url: page.url() })),
      text: (target) =>
        verb('text', target, (scope) =>
          Effect.flatMap(activePage(scope), ({ page }) => Effect.map(pageCall('text', deadline, () => readText(page)), (t) => ({ url: page.url(), ...t })))),
      html: (target) =>
        verb('html', target, (scope) =>
          Effect.flatMap(activePage(scope), ({ page }) => Effect.map(pageCall('html', deadline, () => readHtml(page)), (h) => ({ url: page.url(), ...h })))),
      screenshot: (target, { fullPage }) =>
        read('screenshot', target, async (page) => new Uint8Array(await page.screenshot({ type: 'png', fullPage, timeout: deadline }))),
      click: (target, { selector, timeoutMs }) =>
        onActive('click', target, (page) => page.click(selector, { timeout: Math.min(timeoutMs ?? DEFAULT_ACTION_TIMEOUT, deadline) })),
      fill: (target, { selector, value, timeoutMs }) =>
        onActive('fill', target, (page) => page.fill(selector, value, { timeout: Math.min(timeoutMs ?? DEFAULT_ACTION_TIMEOUT, deadline) })),
      scroll: (target, { dx, dy }) => read('scroll', target, (page) => scrollBy(page, dx, dy)),
      back: (target) =>
        Effect.mapError(onActive('back', target, (page) => page.goBack({ waitUntil: 'commit', timeout: deadline }), true), (e) => e._tag === 'PageError' ? navigationRefused(e) : e),
      forward: (target) =>
        Effect.mapError(onActive('forward', target, (page) => page.goForward({ waitUntil: 'commit', timeout: deadline }), true), (e) => e._tag === 'PageError' ? navigationRefused(e) : e),
      reload: (target) =>
        Effect.mapError(onActive('reload', target, (page) => page.reload({ waitUntil: 'commit', timeout: deadline }), true), (e) => e._tag === 'PageError' ? navigationRefused(e) : e),
      frame,
      state,
      input: (target, events) =>
        verb('input', target, (scope) =>
          Effect.gen(function* () {
            const { page } = yield* activePage(scope)
            const applied = yield* scope.session.inputLock.withPermits(1)(pageCall('input', deadline, () => applyInput(page, events)))
            scope.session.inputEvents += applied
            return { applied }
          })),
      viewport: (target, size) =>
        verb('viewport', target, (scope) =>
          Effect.gen(function* () {
            scope.session.viewport = { width: size.width, height: size.height }
            const tabs = yield* Effect.mapError(runtime.tabs(scope.contextId), fromRuntime)
            for (const t of tabs) {
              const page = pages.pageOf(scope.contextId, t.id)
              if (page) yield* fitViewport(scope.session, page)
            }
            return scope.session.viewport
          })),
      tabs: (target) => verb('tabs', target, tabViews),
      openTab: (target, url) =>
        Effect.zipRight(
          allowed(url),
          verb('open tab', target, (scope) =>
            Effect.gen(function* () {
              watchContext(scope.session, scope.contextId)
              const tab = yield* runtime.openTab(scope.contextId, url).pipe(Effect.mapError((e) => navigationRefused(fromRuntime(e))))
              scope.session.active = undefined
              const page = pages.pageOf(scope.contextId, tab.id)
              if (page) yield* fitViewport(scope.session, page)
              return tabView(scope.session, tab)
            })),
        ),
      activateTab: (target, publicId) =>
        Effect.flatMap(ownTab(target, publicId), (tabId) =>
          verb('activate tab', target, (scope) =>
            Effect.gen(function* () {
              yield* runtime.activateTab(scope.contextId, tabId).pipe(
                Effect.mapError((e) =>
                  e._tag === 'RuntimeError' && e.reason === 'invalid'
                    ? new TabNotFound({ reason: 'unknown-tab', message: `This session has no tab ${publicId}; list its tabs with GET /v1/tabs.` })
                    : fromRuntime(e)),
              )
              scope.session.active = undefined
              return yield* tabViews(scope)
            }))),
      closeTab: (target, publicId) =>
        Effect.flatMap(ownTab(target, publicId), (tabId) =>
          verb('close tab', target, (scope) =>
            Effect.gen(function* () {
              // Idempotent within the session: a tab of its own that is already closed is closed.
              yield* Effect.mapError(runtime.closeTab(scope.contextId, tabId), fromRuntime)
              scope.session.active = undefined
              return yield* tabViews(scope)
            }))),
      dialog: (target, { accept, promptText }) =>
        verb('dialog', target, (scope) =>
          Effect.flatMap(
            Effect.promise(async () => pages.answerDialog?.(scope.contextId, { accept, promptText })),
            (d) => d === undefined
              ? Effect.fail(new NoDialog({ reason: 'no-dialog', message: NO_DIALOG_MESSAGE }))
              : Effect.succeed({ answered: dialogView(d, (id) => publicTabId(scope.session, id)) }),
          )),
      onPage: (target, what, run) =>
        verb(what, target, (scope) =>
          Effect.flatMap(activePage(scope), ({ tabId, page }) => pageCall(what, deadline, () => run(page, publicTabId(scope.session, tabId))))),
      task: (key: SessionKey, status) =>
        Effect.gen(function* () {
          const view = yield* supervisor.taskChanged(conversationIdOf(key), status)
          if (ENDING.has(status)) yield* Effect.promise(() => book.drop(key))
          return { lifecycle: view.state }
        }),
      release: (key) =>
        Effect.gen(function* () {
          yield* supervisor.release(conversationIdOf(key))
          yield* Effect.promise(() => book.drop(key))
        }),
    }
    return browsing
  })
