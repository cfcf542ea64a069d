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
 * const browsing = yield* makeBrowsing({ deadlineMs: 30_000 })
 * yield* browsing.navigate(sessionTarget(key), 'http://127.0.0.1:3000/')
 */
import { Runtime, type PageAction, type PageHistoryStep, type PageRead } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { Sessions } from '@errands/sessions'
import { Vault } from '@errands/passwords'
import { Effect, type Scope } from 'effect'
import { PageError, TabNotFound } from '../errors.ts'
import { conversationIdOf, type SessionKey } from '../sessionKey.ts'
import { fillPassword, type FillSecrets } from '../person/passwords.ts'
import { makeActivePage } from './activePage.ts'
import type { BrowsingShape, Target } from './Browsing.ts'
import { dialogView, NO_DIALOG_MESSAGE, NoDialog } from './dialog.ts'
import { makeDriving } from './driving.ts'
import { makeFiles } from './files.ts'
import { makeFrame } from './frame.ts'
import { drive, fromRuntime, MAX_EVALUATE, MAX_HTML, MAX_TEXT, navigation, pageCall, runtimeCall } from './pageCalls.ts'
import { makeSessionState } from './sessionState.ts'
import { publicTabId, SessionBook } from './sessions.ts'
import { makeTabViews } from './tabViews.ts'
import type { BrowsingOptions, VerbCore } from './verbCore.ts'

export type { BrowsingOptions } from './verbCore.ts'

const ENDING = new Set(['done', 'unverified', 'stopped'])
const DEFAULT_ACTION_TIMEOUT = 10_000

/**
 * Builds the verbs (each context's cast is the runtime's, and stops with its context).
 *
 * @example
 * const browsing = yield* makeBrowsing({ deadlineMs: 30_000 })
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
    // W1: the person's vault, when this host keeps one (a fill without it is a 501).
    const vault = yield* Effect.serviceOption(Vault)
    const deadline = options.deadlineMs

    const core: VerbCore = { options, sessions, runtime, store, book, deadline }
    const driving = makeDriving(core)
    const active = makeActivePage(core)
    const views = makeTabViews(core)
    const { verb } = driving
    const { summaryView } = active
    const pages = runtime.pages
    const { tabView, tabViews, ownTab } = views
    const frame = makeFrame(core, driving)
    const state = makeSessionState(core, active, views)

    /** A read of the active tab with where it is: one runtime call (docs/adr/0049-runtime-owns-the-page.md). */
    const read = <R extends PageRead>(target: Target, request: R) =>
      verb(request.type, target, (scope) => drive(pages.read(scope.contextId, request)))

    /**
     * An action by selector, then where the page is: one runtime call. One that opens a dialog
     * returns with it: the runtime's act does not wait for the answer (#22).
     */
    const act = (target: Target, action: PageAction) =>
      verb(action.type, target, (scope) =>
        Effect.map(drive(pages.perform(scope.contextId, action)), (s) => summaryView(scope.session, s)),
      )

    /** Back, forward or reload until the new document commits, then where the page is: one runtime call. */
    const step = (target: Target, what: PageHistoryStep) =>
      verb(what, target, (scope) =>
        Effect.map(navigation(pages.travel(scope.contextId, what, deadline)), (s) => summaryView(scope.session, s)),
      )

    const actionTimeout = (timeoutMs: number | undefined) => Math.min(timeoutMs ?? DEFAULT_ACTION_TIMEOUT, deadline)

    /**
     * W2, W3: the plan is judged on the tab's URL as the fill starts; the runtime judges each field's frame. Local:
     * the plan is a function, so only the body of a fill crosses a process.
     */
    const fillSecrets: FillSecrets = (target, plan) =>
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
          const { value: url, tabId } = yield* drive(pages.read(scope.contextId, { type: 'url' }))
          const fill = yield* plan(url)
          const budget = Math.max(deadline, fill.timeoutMs * fill.fields.length + 1_000)
          const outcome = yield* runtimeCall('fill-password', budget, secrets.fill(scope.contextId, tabId, fill))
          return { outcome, page: summaryView(scope.session, yield* drive(pages.summary(scope.contextId))) }
        }),
      )

    const browsing: BrowsingShape & { readonly book: SessionBook } = {
      book,
      // One runtime call: the runtime judges the URL (its one rule), picks and fits the tab,
      // navigates, waits and says where the page is.
      navigate: (target, url) =>
        verb('navigate', target, (scope) =>
          Effect.map(navigation(pages.go(scope.contextId, url, deadline)), (s) => summaryView(scope.session, s)),
        ),
      url: (target) => Effect.map(read(target, { type: 'url' }), ({ url }) => ({ url })),
      text: (target) =>
        Effect.map(read(target, { type: 'text', limit: MAX_TEXT }), ({ value, url }) => ({ url, ...value })),
      html: (target) =>
        Effect.map(read(target, { type: 'html', limit: MAX_HTML }), ({ value, url }) => ({
          url,
          html: value.text,
          truncated: value.truncated,
        })),
      screenshot: (target, { fullPage }) =>
        Effect.map(read(target, { type: 'screenshot', options: { fullPage } }), ({ value }) => value),
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
        Effect.map(read(target, { type: 'evaluate', expression, limit: MAX_EVALUATE }), ({ value, url }) => ({
          url,
          ...value,
        })),
      console: (target) =>
        Effect.map(read(target, { type: 'console' }), ({ value, url }) => ({
          url,
          messages: value.entries,
          dropped: value.dropped,
        })),
      network: (target) =>
        Effect.map(read(target, { type: 'network' }), ({ value, url }) => ({
          url,
          requests: value.entries,
          dropped: value.dropped,
        })),
      fillForm: (target, { fields, timeoutMs }) =>
        act(target, { type: 'fill-form', fields, timeoutMs: actionTimeout(timeoutMs) }),
      drag: (target, { from, to, timeoutMs }) =>
        act(target, { type: 'drag', from, to, timeoutMs: actionTimeout(timeoutMs) }),
      upload: (target, { selector, names, timeoutMs }) =>
        act(target, { type: 'upload', selector, names, timeoutMs: actionTimeout(timeoutMs) }),
      ...makeFiles(core, driving),
      scroll: (target, { dx, dy }) => Effect.map(read(target, { type: 'scroll', dx, dy }), ({ value }) => value),
      back: (target) => step(target, 'back'),
      forward: (target) => step(target, 'forward'),
      reload: (target) => step(target, 'reload'),
      frame,
      state,
      input: (target, events) =>
        verb('input', target, (scope) =>
          Effect.gen(function* () {
            // The context's input lock is the runtime's: events of two calls never interleave.
            const { applied } = yield* drive(pages.inputActive(scope.contextId, events))
            scope.session.inputEvents += applied
            return { applied }
          }),
        ),
      viewport: (target, size) =>
        verb('viewport', target, (scope) =>
          Effect.gen(function* () {
            // The runtime fits the context; the session remembers the size for a context it gets later (a resume).
            scope.session.viewport = { width: size.width, height: size.height }
            return yield* drive(pages.fit(scope.contextId, size))
          }),
        ),
      tabs: (target) => verb('tabs', target, tabViews),
      openTab: (target, url) =>
        verb('open tab', target, (scope) =>
          Effect.map(navigation(pages.open(scope.contextId, url)), (tab) => tabView(scope.session, tab)),
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
              return yield* tabViews(scope)
            }),
          ),
        ),
      dialog: (target, { accept, promptText }) =>
        verb('dialog', target, (scope) =>
          Effect.flatMap(pages.answerDialog(scope.contextId, { accept, promptText }), (d) =>
            d === undefined
              ? Effect.fail(new NoDialog({ reason: 'no-dialog', message: NO_DIALOG_MESSAGE }))
              : Effect.succeed({ answered: dialogView(d, (id) => publicTabId(scope.session, id)) }),
          ),
        ),
      // W2, W3: the vault picks the entry on this host, where the page is; the fill's body is data.
      fillPassword: fillPassword({ fillSecrets, vault }),
      // The escape hatch for MCP's locator tools: the runtime's opaque page, handed on untouched.
      onPage: (target, what, run) =>
        verb(
          what,
          target,
          (scope) =>
            Effect.gen(function* () {
              const { value: raw, tabId } = yield* drive(pages.read(scope.contextId, { type: 'raw' }))
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
