/**
 * What the host does with pages: every stateful verb of the HTTP API (B3), keyed by a
 * {@link Target} — a session key (an errand context through the supervisor) or the person's main
 * context (only the person's endpoints, with the token, ever name it).
 *
 * The HTTP layer depends on this interface only, so the router is tested in-process against a
 * recording fake ({@link Browsing.layerRecording}) with no browser at all.
 *
 * @example
 * const browsing = yield* Browsing
 * yield* browsing.navigate(sessionTarget(key), 'https://example.com/')
 */
import type { RawPage, UpstreamProxy } from '@errands/runtime'
import type { AllBusy, ErrandUnavailable, InvalidRequest, PersonDriving, UnknownConversation } from '@errands/sessions'
import { Context, Effect, Layer } from 'effect'
import type { BlockedByPolicy, FileNotFound, FileTooLarge, PageError, TabNotFound } from '../errors.ts'
import type { ErrandFileView } from '../filesAnswers.ts'
import type { NoDialog } from './dialog.ts'
import type {
  ConsoleAnswer,
  DialogAnswer,
  EvaluateAnswer,
  Frame,
  HtmlAnswer,
  NetworkAnswer,
  InputAnswer,
  PageSummary,
  ScrollAnswer,
  SessionState,
  TabView,
  TaskAnswer,
  TextAnswer,
  UrlAnswer,
  ViewportSize,
} from '../answers.ts'
import type {
  ClickBody,
  DialogBody,
  DragBody,
  EvaluateBody,
  FillBody,
  FillFormBody,
  UploadBody,
  InputEvent,
  ScrollBody,
  TaskBody,
  ViewportBody,
} from '../schemas.ts'
import type { SessionKey } from '../sessionKey.ts'
import type { FillPasswordAnswer, FillPasswordBody, FillPasswordError } from '../person/passwords.ts'

/**
 * Whose page a call drives: one host session, or the person's main (signed-in) context. A
 * session call may name the upstream proxy its errand leaves through when this call opens it
 * (`X-Browser-Proxy`, issue #21); a secret, kept `Redacted`.
 *
 * @example
 * const t: Target = { _tag: 'session', key }
 */
export type Target =
  | { readonly _tag: 'session'; readonly key: SessionKey; readonly upstreamProxy?: UpstreamProxy | undefined }
  | { readonly _tag: 'main' }

/**
 * The target of a session key (and the upstream proxy to open its errand with, if any).
 *
 * @example
 * sessionTarget(key) // { _tag: 'session', key }
 */
export const sessionTarget = (key: SessionKey, upstreamProxy?: UpstreamProxy | undefined): Target =>
  upstreamProxy === undefined ? { _tag: 'session', key } : { _tag: 'session', key, upstreamProxy }

/** The person's main context (only the person's endpoints name it). @example browsing.url(mainTarget) */
export const mainTarget: Target = { _tag: 'main' }

export type { Frame, PageSummary, SessionState, TabView } from '../answers.ts'

/** Every way a page call can fail. */
export type BrowsingError =
  | AllBusy
  | ErrandUnavailable
  | InvalidRequest
  | UnknownConversation
  | BlockedByPolicy
  | PageError
  | TabNotFound
  | PersonDriving

/** The stateful verbs. Each call has a deadline; a call in flight keeps its session from being parked (B5). */
export interface BrowsingShape {
  readonly navigate: (target: Target, url: string) => Effect.Effect<PageSummary, BrowsingError>
  readonly url: (target: Target) => Effect.Effect<typeof UrlAnswer.Type, BrowsingError>
  readonly text: (target: Target) => Effect.Effect<typeof TextAnswer.Type, BrowsingError>
  readonly html: (target: Target) => Effect.Effect<typeof HtmlAnswer.Type, BrowsingError>
  readonly screenshot: (
    target: Target,
    options: { readonly fullPage: boolean },
  ) => Effect.Effect<Uint8Array, BrowsingError>
  readonly click: (target: Target, body: ClickBody) => Effect.Effect<PageSummary, BrowsingError>
  readonly fill: (target: Target, body: FillBody) => Effect.Effect<PageSummary, BrowsingError>
  readonly scroll: (target: Target, body: ScrollBody) => Effect.Effect<typeof ScrollAnswer.Type, BrowsingError>
  readonly back: (target: Target) => Effect.Effect<PageSummary, BrowsingError>
  readonly forward: (target: Target) => Effect.Effect<PageSummary, BrowsingError>
  readonly reload: (target: Target) => Effect.Effect<PageSummary, BrowsingError>
  readonly frame: (target: Target) => Effect.Effect<Frame, BrowsingError>
  /** Reads what is; never opens, resumes or creates anything (a parked session stays parked). */
  readonly state: (target: Target) => Effect.Effect<SessionState, BrowsingError>
  readonly input: (
    target: Target,
    events: ReadonlyArray<InputEvent>,
  ) => Effect.Effect<typeof InputAnswer.Type, BrowsingError>
  readonly viewport: (target: Target, body: ViewportBody) => Effect.Effect<typeof ViewportSize.Type, BrowsingError>
  readonly tabs: (target: Target) => Effect.Effect<ReadonlyArray<TabView>, BrowsingError>
  readonly openTab: (target: Target, url: string) => Effect.Effect<TabView, BrowsingError>
  readonly activateTab: (target: Target, tabId: string) => Effect.Effect<ReadonlyArray<TabView>, BrowsingError>
  readonly closeTab: (target: Target, tabId: string) => Effect.Effect<ReadonlyArray<TabView>, BrowsingError>
  /** Answers the session's waiting JavaScript dialog (#22); `NoDialog` (409) when none waits. */
  readonly dialog: (
    target: Target,
    body: DialogBody,
  ) => Effect.Effect<typeof DialogAnswer.Type, BrowsingError | NoDialog>
  /** Evaluates an expression in the active tab's page (#25); what the page throws is `PageError('invalid')`. */
  readonly evaluate: (target: Target, body: EvaluateBody) => Effect.Effect<typeof EvaluateAnswer.Type, BrowsingError>
  /** The active tab's console messages since it opened (#25). */
  readonly console: (target: Target) => Effect.Effect<typeof ConsoleAnswer.Type, BrowsingError>
  /** The active tab's requests since it opened (#25). */
  readonly network: (target: Target) => Effect.Effect<typeof NetworkAnswer.Type, BrowsingError>
  readonly fillForm: (target: Target, body: FillFormBody) => Effect.Effect<PageSummary, BrowsingError>
  readonly drag: (target: Target, body: DragBody) => Effect.Effect<PageSummary, BrowsingError>
  /**
   * Files of the errand's files folder into a file input (#25); a context without a folder is `PageError('invalid')`.
   */
  readonly upload: (target: Target, body: UploadBody) => Effect.Effect<PageSummary, BrowsingError>
  /** The errand's downloads (#25, `files.ts`): name, size, type, when, from where. */
  readonly downloads: (target: Target) => Effect.Effect<ReadonlyArray<ErrandFileView>, BrowsingError>
  /** One file of the errand's folder, its bytes and media type (`FileNotFound` when absent). */
  readonly download: (
    target: Target,
    name: string,
  ) => Effect.Effect<{ readonly bytes: Uint8Array; readonly type: string }, BrowsingError | FileNotFound>
  /** Stages bytes in the errand's folder under a plain, deduplicated name (413 over a cap). */
  readonly stageFile: (
    target: Target,
    name: string,
    bytes: Uint8Array,
  ) => Effect.Effect<{ readonly name: string; readonly size: number }, BrowsingError | FileTooLarge>
  /**
   * Runs `run` on the active tab's page while driving the session — the same bring-up, deadline
   * and failure kinds as every verb — for faces that work on the page itself (the MCP tools'
   * snapshots and refs, A3). The page is the runtime's opaque `RawPage` (the declared escape
   * hatch, #24): only MCP turns it into a Playwright page. `tab` is the active tab's public id.
   */
  readonly onPage: <A>(
    target: Target,
    what: string,
    run: (page: RawPage, tab: string) => Promise<A>,
  ) => Effect.Effect<A, BrowsingError>
  /**
   * Fills the person's saved sign-in for the active tab's site with stand-ins (W2, W3; docs/passwords.md): the
   * vault picks the entry for the tab's URL (a wrong site fills nothing), the runtime puts stand-ins into the page
   * and their values into the requests to the entry's site. Data only, so a cluster carries it to the errand's
   * owner like every verb (docs/adr/0053-data-only-verbs-cross-the-cluster.md).
   */
  readonly fillPassword: (
    target: Target,
    body: FillPasswordBody,
  ) => Effect.Effect<typeof FillPasswordAnswer.Type, BrowsingError | FillPasswordError>
  /** The task's status changed (E3/E4): done/unverified/stopped forget it, interrupted/failed park it. */
  readonly task: (
    key: SessionKey,
    status: TaskBody['status'],
  ) => Effect.Effect<typeof TaskAnswer.Type, UnknownConversation>
  /** Closes and forgets the session (idempotent). */
  readonly release: (key: SessionKey) => Effect.Effect<void>
  /** Parks the session's errand now (the person's Park in the live view, V1): sealed, its browser closed. */
  readonly park: (key: SessionKey) => Effect.Effect<void, BrowsingError>
  /** Brings a parked session's errand back (the person's Resume, V1): its cookies, storage and tabs. */
  readonly resume: (key: SessionKey) => Effect.Effect<void, BrowsingError>
}

/** One call the recording fake saw. */
export interface RecordedCall {
  readonly method: keyof BrowsingShape
  readonly args: ReadonlyArray<unknown>
}

/**
 * The host's page verbs (`@errands/host/Browsing`).
 *
 * @example
 * const program = Effect.flatMap(Browsing, (b) => b.url(sessionTarget(key)))
 */
export class Browsing extends Context.Tag('@errands/host/Browsing')<Browsing, BrowsingShape>() {
  /**
   * A stand-in whose given methods answer and every other one dies loudly, naming the method.
   *
   * @example
   * Browsing.layerTest({ url: () => Effect.succeed({ url: 'about:blank' }) })
   */
  static layerTest(partial: Partial<BrowsingShape>): Layer.Layer<Browsing> {
    return Layer.succeed(
      Browsing,
      Browsing.fake(partial, () => undefined),
    )
  }

  /**
   * A fake that records every call into `calls` (the router tests prove bad input reaches none)
   * and answers each with a plausible value.
   *
   * @example
   * const calls: RecordedCall[] = []
   * Effect.provide(program, Browsing.layerRecording(calls))
   */
  static layerRecording(calls: Array<RecordedCall>, overrides: Partial<BrowsingShape> = {}): Layer.Layer<Browsing> {
    const summary: PageSummary = { url: 'about:blank', title: '', tab: 'fake-t1' }
    const tab: TabView = { id: 'fake-t1', url: 'about:blank', title: '', active: true, reason: 'task', lentSites: [] }
    const answers: BrowsingShape = {
      navigate: (_t, url) => Effect.succeed({ ...summary, url }),
      url: () => Effect.succeed({ url: 'about:blank' }),
      text: () => Effect.succeed({ url: 'about:blank', text: '', truncated: false }),
      html: () => Effect.succeed({ url: 'about:blank', html: '<html></html>', truncated: false }),
      screenshot: () => Effect.succeed(new Uint8Array([0x89, 0x50, 0x4e, 0x47])),
      click: () => Effect.succeed(summary),
      fill: () => Effect.succeed(summary),
      scroll: (_t, b) => Effect.succeed({ scrollX: b.dx, scrollY: b.dy }),
      back: () => Effect.succeed(summary),
      forward: () => Effect.succeed(summary),
      reload: () => Effect.succeed(summary),
      frame: () =>
        Effect.succeed({ data: new Uint8Array([0xff, 0xd8]), mime: 'image/jpeg', seq: 1, at: 0, source: 'screencast' }),
      state: () =>
        Effect.succeed({
          lifecycle: 'active',
          url: 'about:blank',
          title: '',
          tabs: [tab],
          viewport: { width: 1280, height: 720 },
          input: { events: 0 },
          frame: { seq: 0, at: null },
          lentSites: [],
          lastUsedAt: 0,
          dialog: null,
        }),
      input: (_t, events) => Effect.succeed({ applied: events.length }),
      viewport: (_t, b) => Effect.succeed(b),
      tabs: () => Effect.succeed([tab]),
      openTab: (_t, url) => Effect.succeed({ ...tab, url }),
      activateTab: () => Effect.succeed([tab]),
      closeTab: () => Effect.succeed([]),
      dialog: () => Effect.succeed({ answered: { type: 'confirm', message: '', defaultPrompt: '', tab: 'fake-t1' } }),
      evaluate: () => Effect.succeed({ url: 'about:blank', value: null, truncated: false }),
      console: () => Effect.succeed({ url: 'about:blank', messages: [], dropped: 0 }),
      network: () => Effect.succeed({ url: 'about:blank', requests: [], dropped: 0 }),
      fillForm: () => Effect.succeed(summary),
      drag: () => Effect.succeed(summary),
      upload: () => Effect.succeed(summary),
      downloads: () => Effect.succeed([]),
      download: () => Effect.succeed({ bytes: new Uint8Array([0x25, 0x50]), type: 'application/pdf' }),
      stageFile: (_t, name, bytes) => Effect.succeed({ name, size: bytes.byteLength }),
      onPage: () => Effect.dieMessage('Browsing fake: onPage needs a real page'),
      // Filled on a page of shop.example; nothing is filled.
      fillPassword: (_t, body) =>
        Effect.succeed({
          ...summary,
          url: 'https://shop.example/login',
          site: body.site ?? 'shop.example',
          user: body.user ?? 'ann',
          filled: body.username === undefined ? 1 : 2,
        }),
      task: (_k, status) => Effect.succeed({ lifecycle: status === 'running' ? 'active' : 'closed' }),
      release: () => Effect.void,
      park: () => Effect.void,
      resume: () => Effect.void,
      ...overrides,
    }
    return Layer.succeed(
      Browsing,
      Browsing.fake(answers, (method, args) => calls.push({ method, args })),
    )
  }

  private static fake(
    impl: Partial<BrowsingShape>,
    record: (method: keyof BrowsingShape, args: ReadonlyArray<unknown>) => void,
  ): BrowsingShape {
    return new Proxy({} as BrowsingShape, {
      get: (_target, key: string) => {
        const method = key as keyof BrowsingShape
        const f = impl[method] as ((...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>) | undefined
        return (...args: ReadonlyArray<unknown>) =>
          Effect.suspend(() => {
            record(method, args)
            return f ? f(...args) : Effect.dieMessage(`Browsing fake: "${method}" was not provided`)
          })
      },
    })
  }
}
