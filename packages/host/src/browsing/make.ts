/**
 * The host's page verbs over the supervisor and the runtime (B2–B6). One code path: a session
 * key becomes the conversation `session:<key>`, and every call drives that errand through the
 * supervisor — which opens it on first use, resumes it when it was parked, heals it when it
 * crashed, and never parks it while the call is in flight (B5). The key's drive lock makes N
 * simultaneous first calls open one context.
 *
 * This file wires the verbs; their parts live beside it: `driving.ts` (reaching the target),
 * `activePage.ts`, `tabViews.ts`, `frame.ts`, `sessionState.ts`, and `verbCore.ts` (what they share).
 *
 * @example
 * const browsing = yield* makeBrowsing({ policy, deadlineMs: 30_000 })
 * yield* browsing.navigate(sessionTarget(key), 'http://127.0.0.1:3000/')
 */
import {
  inputDeadline,
  Runtime,
  type ContextNotFound,
  type PageAction,
  type PageHistoryStep,
  type PageVerbs,
  type RuntimeError,
} from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { Sessions } from '@errands/sessions'
import { Effect, type Scope } from 'effect'
import { BlockedByPolicy, PageError, TabNotFound } from '../errors.ts'
import { conversationIdOf, type SessionKey } from '../sessionKey.ts'
import { makeActivePage } from './activePage.ts'
import type { BrowsingShape, Target } from './Browsing.ts'
import { dialogView, NO_DIALOG_MESSAGE, NoDialog } from './dialog.ts'
import { makeDriving } from './driving.ts'
import { makeFiles } from './files.ts'
import { makeFrame } from './frame.ts'
import { fromRuntime, MAX_EVALUATE, MAX_HTML, MAX_TEXT, pageCall, runtimeCall } from './pageCalls.ts'
import { makeSessionState } from './sessionState.ts'
import { publicTabId, SessionBook } from './sessions.ts'
import { makeTabViews } from './tabViews.ts'
import type { BrowsingOptions, VerbCore } from './verbCore.ts'

export type { BrowsingOptions } from './verbCore.ts'

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
): Effect.Effect<
  BrowsingShape & { readonly book: SessionBook },
  never,
  Sessions | Runtime | SealedStore | Scope.Scope
> =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const runtime = yield* Runtime
    const store = yield* SealedStore
    const book = new SessionBook()
    const deadline = options.deadlineMs
    yield* Effect.addFinalizer(() => Effect.promise(() => book.stopAll()))

    const core: VerbCore = { options, sessions, runtime, store, book, deadline }
    const driving = makeDriving(core)
    const active = makeActivePage(core)
    const views = makeTabViews(core)
    const { allowed, verb } = driving
    const { verbsFor, fitViewport, activePage, summary } = active
    const { tabView, tabViews, ownTab } = views
    const frame = makeFrame(core, driving, active)
    const state = makeSessionState(core, active, views)

    /**
     * One of the runtime's page verbs on the active tab; with `withUrl`, `url` is where the tab
     * is after it (the reads answer with it).
     */
    const onTab = <A>(
      what: string,
      target: Target,
      run: (verbs: PageVerbs, contextId: string, tabId: string) => Effect.Effect<A, RuntimeError | ContextNotFound>,
      withUrl = false,
    ) =>
      verb(what, target, (scope) =>
        Effect.gen(function* () {
          const { tabId } = yield* activePage(scope)
          const verbs = yield* verbsFor(what)
          const a = yield* runtimeCall(what, deadline, run(verbs, scope.contextId, tabId))
          const url = withUrl ? yield* runtimeCall(what, deadline, verbs.url(scope.contextId, tabId)) : ''
          return { a, url }
        }),
      )

    /**
     * An action by selector, then where the page is. One that opens a dialog returns with it: the
     * runtime's act does not wait for the answer (#22).
     */
    const act = (target: Target, action: PageAction) =>
      verb(action.type, target, (scope) =>
        Effect.gen(function* () {
          const { tabId } = yield* activePage(scope)
          const verbs = yield* verbsFor(action.type)
          yield* runtimeCall(action.type, deadline, verbs.act(scope.contextId, tabId, action))
          return yield* summary(scope.session, scope.contextId, tabId)
        }),
      )

    /** Back, forward or reload until the new document commits, then where the page is. */
    const step = (target: Target, what: PageHistoryStep) =>
      Effect.mapError(
        verb(what, target, (scope) =>
          Effect.gen(function* () {
            const { tabId } = yield* activePage(scope)
            const verbs = yield* verbsFor(what)
            const where = yield* runtimeCall(
              what,
              deadline,
              verbs.history(scope.contextId, tabId, what, deadline, 'commit'),
              true,
            )
            return yield* summary(scope.session, scope.contextId, tabId, { where })
          }),
        ),
        (e) => (e._tag === 'PageError' ? navigationRefused(e) : e),
      )

    const actionTimeout = (timeoutMs: number | undefined) => Math.min(timeoutMs ?? DEFAULT_ACTION_TIMEOUT, deadline)

    const navigationRefused = (e: PageError): PageError | BlockedByPolicy =>
      /ERR_BLOCKED_BY_CLIENT|blocked by policy/.test(e.message)
        ? new BlockedByPolicy({
            reason: 'blocked',
            rule: 'guard',
            message: `The containment policy refused this navigation (${e.message}); use another address.`,
          })
        : e

    const browsing: BrowsingShape & { readonly book: SessionBook } = {
      book,
      navigate: (target, url) =>
        Effect.zipRight(
          allowed(url),
          verb('navigate', target, (scope) =>
            Effect.gen(function* () {
              const { tabId } = yield* activePage(scope)
              const verbs = yield* verbsFor('navigate')
              yield* runtime
                .navigate(scope.contextId, tabId, url)
                .pipe(Effect.mapError((e) => navigationRefused(fromRuntime(e))))
              // Committed; give the document a moment to be parsed, but never fail for a slow one.
              yield* Effect.ignore(runtimeCall('load', deadline, verbs.waitForLoad(scope.contextId, tabId, deadline)))
              return yield* summary(scope.session, scope.contextId, tabId, { dialogs: false })
            }),
          ),
        ),
      url: (target) =>
        verb('url', target, (scope) =>
          Effect.gen(function* () {
            const { tabId } = yield* activePage(scope)
            const verbs = yield* verbsFor('url')
            return { url: yield* runtimeCall('url', deadline, verbs.url(scope.contextId, tabId)) }
          }),
        ),
      text: (target) =>
        Effect.map(
          onTab('text', target, (v, id, tab) => v.text(id, tab, MAX_TEXT), true),
          ({ a, url }) => ({ url, ...a }),
        ),
      html: (target) =>
        Effect.map(
          onTab('html', target, (v, id, tab) => v.html(id, tab, MAX_HTML), true),
          ({ a, url }) => ({ url, html: a.text, truncated: a.truncated }),
        ),
      screenshot: (target, { fullPage }) =>
        Effect.map(
          onTab('screenshot', target, (v, id, tab) => v.screenshot(id, tab, { fullPage })),
          ({ a }) => a,
        ),
      click: (target, { selector, timeoutMs }) =>
        act(target, { type: 'click', selector, timeoutMs: Math.min(timeoutMs ?? DEFAULT_ACTION_TIMEOUT, deadline) }),
      fill: (target, { selector, value, timeoutMs }) =>
        act(target, {
          type: 'fill',
          selector,
          value,
          timeoutMs: Math.min(timeoutMs ?? DEFAULT_ACTION_TIMEOUT, deadline),
        }),
      // Issue #25: Playwright MCP's tools, through the runtime's page capability like every verb.
      evaluate: (target, { expression }) =>
        Effect.map(
          onTab('evaluate', target, (v, id, tab) => v.evaluate(id, tab, expression, MAX_EVALUATE), true),
          ({ a, url }) => ({ url, ...a }),
        ),
      console: (target) =>
        Effect.map(
          onTab('console', target, (v, id, tab) => v.console(id, tab), true),
          ({ a, url }) => ({ url, messages: a.entries, dropped: a.dropped }),
        ),
      network: (target) =>
        Effect.map(
          onTab('network', target, (v, id, tab) => v.network(id, tab), true),
          ({ a, url }) => ({ url, requests: a.entries, dropped: a.dropped }),
        ),
      fillForm: (target, { fields, timeoutMs }) =>
        act(target, { type: 'fill-form', fields, timeoutMs: actionTimeout(timeoutMs) }),
      drag: (target, { from, to, timeoutMs }) =>
        act(target, { type: 'drag', from, to, timeoutMs: actionTimeout(timeoutMs) }),
      upload: (target, { selector, names, timeoutMs }) =>
        act(target, { type: 'upload', selector, names, timeoutMs: actionTimeout(timeoutMs) }),
      ...makeFiles(core, driving),
      scroll: (target, { dx, dy }) =>
        Effect.map(
          onTab('scroll', target, (v, id, tab) => v.scroll(id, tab, dx, dy)),
          ({ a }) => a,
        ),
      back: (target) => step(target, 'back'),
      forward: (target) => step(target, 'forward'),
      reload: (target) => step(target, 'reload'),
      frame,
      state,
      input: (target, events) =>
        verb('input', target, (scope) =>
          Effect.gen(function* () {
            const { tabId } = yield* activePage(scope)
            const verbs = runtime.pages
            if (verbs === undefined)
              return yield* new PageError({ reason: 'invalid', message: 'input: this browser cannot drive pages.' })
            const applied = yield* scope.session.inputLock.withPermits(1)(
              runtimeCall('input', inputDeadline(deadline, events), verbs.input(scope.contextId, tabId, events)),
            )
            scope.session.inputEvents += applied
            return { applied }
          }),
        ),
      viewport: (target, size) =>
        verb('viewport', target, (scope) =>
          Effect.gen(function* () {
            scope.session.viewport = { width: size.width, height: size.height }
            const tabs = yield* Effect.mapError(runtime.tabs(scope.contextId), fromRuntime)
            for (const t of tabs) yield* fitViewport(scope.session, scope.contextId, t.id)
            return scope.session.viewport
          }),
        ),
      tabs: (target) => verb('tabs', target, tabViews),
      openTab: (target, url) =>
        Effect.zipRight(
          allowed(url),
          verb('open tab', target, (scope) =>
            Effect.gen(function* () {
              const tab = yield* runtime
                .openTab(scope.contextId, url)
                .pipe(Effect.mapError((e) => navigationRefused(fromRuntime(e))))
              scope.session.active = undefined
              yield* fitViewport(scope.session, scope.contextId, tab.id)
              return tabView(scope.session, tab)
            }),
          ),
        ),
      activateTab: (target, publicId) =>
        Effect.flatMap(ownTab(target, publicId), (tabId) =>
          verb('activate tab', target, (scope) =>
            Effect.gen(function* () {
              yield* runtime.activateTab(scope.contextId, tabId).pipe(
                Effect.mapError((e) =>
                  e._tag === 'RuntimeError' && e.reason === 'invalid'
                    ? new TabNotFound({
                        reason: 'unknown-tab',
                        message: `This session has no tab ${publicId}; list its tabs with GET /v1/tabs.`,
                      })
                    : fromRuntime(e),
                ),
              )
              scope.session.active = undefined
              return yield* tabViews(scope)
            }),
          ),
        ),
      closeTab: (target, publicId) =>
        Effect.flatMap(ownTab(target, publicId), (tabId) =>
          verb('close tab', target, (scope) =>
            Effect.gen(function* () {
              // Idempotent within the session: a tab of its own that is already closed is closed.
              yield* Effect.mapError(runtime.closeTab(scope.contextId, tabId), fromRuntime)
              scope.session.active = undefined
              return yield* tabViews(scope)
            }),
          ),
        ),
      dialog: (target, { accept, promptText }) =>
        verb('dialog', target, (scope) =>
          Effect.flatMap(
            runtime.pages === undefined
              ? Effect.succeed(undefined)
              : runtime.pages.answerDialog(scope.contextId, { accept, promptText }),
            (d) =>
              d === undefined
                ? Effect.fail(new NoDialog({ reason: 'no-dialog', message: NO_DIALOG_MESSAGE }))
                : Effect.succeed({ answered: dialogView(d, (id) => publicTabId(scope.session, id)) }),
          ),
        ),
      // W2, W3: the plan is judged on the tab's URL as the fill starts; the runtime judges each field's frame.
      fillSecrets: (target, plan) =>
        verb('fill-password', target, (scope) =>
          Effect.gen(function* () {
            const secrets = runtime.secrets
            if (secrets === undefined)
              return yield* new PageError({
                reason: 'invalid',
                message:
                  'This browser cannot rewrite its requests before the wire, so it fills no password; ask the ' +
                  'person to sign in (POST /v1/session/help).',
              })
            const { tabId } = yield* activePage(scope)
            const verbs = yield* verbsFor('fill-password')
            const fill = yield* plan(yield* runtimeCall('url', deadline, verbs.url(scope.contextId, tabId)))
            const budget = Math.max(deadline, fill.timeoutMs * fill.fields.length + 1_000)
            const outcome = yield* runtimeCall('fill-password', budget, secrets.fill(scope.contextId, tabId, fill))
            return { outcome, page: yield* summary(scope.session, scope.contextId, tabId) }
          }),
        ),
      // The escape hatch for MCP's locator tools: the runtime's opaque page, handed on untouched.
      onPage: (target, what, run) =>
        verb(
          what,
          target,
          (scope) =>
            Effect.gen(function* () {
              const { tabId } = yield* activePage(scope)
              const verbs = yield* verbsFor(what)
              const raw = yield* runtimeCall(what, deadline, verbs.raw(scope.contextId, tabId))
              return yield* pageCall(what, deadline, () => run(raw, publicTabId(scope.session, tabId)))
            }),
          false,
        ),
      task: (key: SessionKey, status) =>
        Effect.gen(function* () {
          const view = yield* sessions.taskChanged(conversationIdOf(key), status)
          if (ENDING.has(status)) yield* Effect.promise(() => book.drop(key))
          return { lifecycle: view.state }
        }),
      release: (key) =>
        Effect.gen(function* () {
          yield* sessions.release(conversationIdOf(key))
          yield* Effect.promise(() => book.drop(key))
        }),
      park: (key) => Effect.asVoid(sessions.park(conversationIdOf(key))),
      resume: (key) => Effect.asVoid(sessions.resume(conversationIdOf(key))),
    }
    return browsing
  })
