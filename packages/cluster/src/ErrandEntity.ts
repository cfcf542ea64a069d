/**
 * The errand as an entity of `@effect/cluster` (issue #16, K1): one entity per session key —
 * the conversation id `session:<key>` of the host — so the cluster's sharding decides which
 * runner (a host process with its own Chromium) owns each errand, and a call to any host
 * reaches the owner through the cluster's messaging.
 *
 * One RPC per page verb of the host (`Browsing`, B3), typed with the host's own Schemas (issue
 * #24): a verb's request carries its arguments with the bodies' Schemas of the HTTP API, and its
 * answer comes back through the answer's Schema (`@errands/host`'s answers.ts), so what the owner
 * says reaches the caller in the shape the host's API gives, or not at all. A session call also
 * carries the upstream proxy its errand is to be opened with (#21, L7), as the secret it is: it
 * travels only on the runners' TLS socket and is never logged. The owner runs the very same
 * `Browsing` call a single host runs (one path, A3).
 * `Heal` makes the entity arrive on its owner at once, which reopens an errand whose previous
 * runner died (K3).
 * None is persisted: a page call is answered now or fails in words; nothing is replayed later
 * into a browser that moved on.
 *
 * @example
 * const client = yield* Errand.client
 * const { url } = yield* client('task-42').url({})
 */
import { Entity } from '@effect/cluster'
import { Rpc } from '@effect/rpc'
import {
  BlockedByPolicy,
  ClickBody,
  ConsoleAnswer,
  DialogAnswer,
  DialogBody,
  DragBody,
  EvaluateAnswer,
  EvaluateBody,
  FillBody,
  FillFormBody,
  Frame,
  HtmlAnswer,
  InputAnswer,
  InputEvent,
  NetworkAnswer,
  NoDialog,
  PageError,
  PageSummary,
  UploadBody,
  Png,
  ScrollAnswer,
  ToolResult,
  ScrollBody,
  SessionState,
  TabNotFound,
  Tabs,
  TabView,
  TaskAnswer,
  TaskStatus,
  TextAnswer,
  UrlAnswer,
  ViewportBody,
  ViewportSize,
  DownloadBytes,
  ErrandFileView,
  FileNotFound,
  FileTooLarge,
  FillPasswordAnswer,
  FillPasswordBody,
  HostUnavailable,
  StagedFile,
  type BrowsingShape,
} from '@errands/host'
import { DevToolsUnavailable } from '@errands/devtools'
import { ContextNotFound, RuntimeError } from '@errands/runtime'
import { InvalidPasswordEntry, NoSuchPassword, SeveralPasswords, VaultUnavailable, WrongSite } from '@errands/passwords'
import { AllBusy, ErrandUnavailable, InvalidRequest, PersonDriving, UnknownConversation } from '@errands/sessions'
import { Schema } from 'effect'
import { Allow, Ask } from './lendRpcs.ts'
import { Driving, HandBack, TakeWheel, WheelInput } from './wheelRpcs.ts'
import { Answered, Asked, Help, View } from './askRpcs.ts'

/**
 * The page verbs a session key's owner answers — every method of `BrowsingShape`.
 *
 * @example
 * Schema.is(Verb)('navigate') // true
 */
export const Verb = Schema.Literal(
  'navigate',
  'url',
  'text',
  'html',
  'screenshot',
  'click',
  'fill',
  'scroll',
  'back',
  'forward',
  'reload',
  'frame',
  'state',
  'input',
  'viewport',
  'tabs',
  'openTab',
  'activateTab',
  'closeTab',
  'task',
  'release',
  'dialog',
  'park',
  'resume',
  'evaluate',
  'console',
  'network',
  'fillForm',
  'drag',
  'upload',
  'downloads',
  'download',
  'stageFile',
  'fillPassword',
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
export const CallError = Schema.Union(
  AllBusy,
  ErrandUnavailable,
  InvalidRequest,
  UnknownConversation,
  BlockedByPolicy,
  PageError,
  TabNotFound,
  NoDialog,
  PersonDriving,
)

/**
 * The upstream proxy a session call opens its errand with (absent: the host-wide one, or none).
 * `Redacted` in memory, its text on the runners' socket: the owner needs it to chain to.
 */
const Session = { upstreamProxy: Schema.optional(Schema.Redacted(Schema.String)) }

/** A page verb: its request fields (besides the session's), and its answer. */
const verb = <const Tag extends string, P extends Schema.Struct.Fields, S extends Schema.Schema.Any>(
  tag: Tag,
  payload: P,
  success: S,
) => Rpc.make(tag, { payload: { ...Session, ...payload }, success, error: CallError })

/**
 * The errand entity. The entity id is the session key.
 *
 * @example
 * Errand.toLayer(handlers)
 */
export const Errand = Entity.make('Errand', [
  // Page results are plain data (strings, numbers, the bytes of a screenshot or frame): the
  // transport's msgpack carries them as they are.
  verb('navigate', { url: Schema.String }, PageSummary),
  verb('url', {}, UrlAnswer),
  verb('text', {}, TextAnswer),
  verb('html', {}, HtmlAnswer),
  verb('screenshot', { fullPage: Schema.Boolean }, Png),
  verb('click', { body: ClickBody }, PageSummary),
  verb('fill', { body: FillBody }, PageSummary),
  verb('scroll', { body: ScrollBody }, ScrollAnswer),
  verb('back', {}, PageSummary),
  verb('forward', {}, PageSummary),
  verb('reload', {}, PageSummary),
  verb('frame', {}, Frame),
  verb('state', {}, SessionState),
  verb('input', { events: Schema.Array(InputEvent) }, InputAnswer),
  verb('viewport', { body: ViewportBody }, ViewportSize),
  verb('tabs', {}, Tabs),
  verb('openTab', { url: Schema.String }, TabView),
  verb('activateTab', { tabId: Schema.String }, Tabs),
  verb('closeTab', { tabId: Schema.String }, Tabs),
  verb('dialog', { body: DialogBody }, DialogAnswer),
  // Issue #25: Playwright MCP's tools. An evaluation's value is any JSON: msgpack carries it as it is.
  verb('evaluate', { body: EvaluateBody }, EvaluateAnswer),
  verb('console', {}, ConsoleAnswer),
  verb('network', {}, NetworkAnswer),
  verb('fillForm', { body: FillFormBody }, PageSummary),
  verb('drag', { body: DragBody }, PageSummary),
  verb('upload', { body: UploadBody }, PageSummary),
  // Issue #25: the errand's files folder lives on its owner's machine; the bytes travel in msgpack.
  verb('downloads', {}, Schema.Array(ErrandFileView)),
  Rpc.make('download', {
    payload: { ...Session, name: Schema.String },
    success: DownloadBytes,
    error: Schema.Union(CallError, FileNotFound),
  }),
  Rpc.make('stageFile', {
    payload: { ...Session, name: Schema.String, bytes: Schema.Uint8ArrayFromSelf },
    success: StagedFile,
    error: Schema.Union(CallError, FileTooLarge),
  }),
  /**
   * W2, W3, K1: a fill of the person's saved sign-in, its body as data
   * (docs/adr/0053-data-only-verbs-cross-the-cluster.md). The owner reads the vault every host shares and fills its
   * own page; only the answer comes back, and the page holds stand-ins.
   */
  Rpc.make('fillPassword', {
    payload: { ...Session, body: FillPasswordBody },
    success: FillPasswordAnswer,
    error: Schema.Union(
      CallError,
      WrongSite,
      NoSuchPassword,
      SeveralPasswords,
      VaultUnavailable,
      InvalidPasswordEntry,
      HostUnavailable,
    ),
  }),
  Rpc.make('task', { payload: { status: TaskStatus }, success: TaskAnswer, error: UnknownConversation }),
  /**
   * A DevTools URL into the errand, minted by its owner (A1, #24): the owner brings the errand up
   * like every verb and gives a URL on its own port, so a client drives the one context there is.
   */
  Rpc.make('devtools', {
    payload: Session,
    success: Schema.Struct({ url: Schema.String }),
    error: Schema.Union(CallError, DevToolsUnavailable),
  }),
  /**
   * The session boundary's `setUpstreamProxy` on the owner (L7, K1; the cluster's `Sessions` overlay, sessions.ts):
   * the errand's upstream proxy from now on (absent: none), re-chained at once where its context is. The proxy is
   * a secret: only on the runners' TLS socket, never logged.
   */
  Rpc.make('setUpstreamProxy', {
    payload: { proxy: Schema.optional(Schema.Redacted(Schema.String)) },
    error: Schema.Union(CallError, ContextNotFound, RuntimeError),
  }),
  Rpc.make('release', { payload: {} }),
  Rpc.make('park', { payload: {}, error: CallError }),
  /**
   * An MCP tool call for the errand (A2, #24): its page cannot cross a process, so the call does;
   * the owner checks the arguments with the tool's own schema and answers with the tool's result
   * (an error result for what failed, as the MCP server would).
   */
  Rpc.make('mcpTool', { payload: { tool: Schema.String, args: Schema.Unknown }, success: ToolResult }),
  Rpc.make('resume', { payload: {}, error: CallError }),
  // The person's card and Allow run where the errand is (lendRpcs.ts).
  Ask,
  Allow,
  // The person's wheel runs where the errand is (wheelRpcs.ts, K4).
  TakeWheel,
  HandBack,
  WheelInput,
  Driving,
  // The person in the loop: the errand's view, a request for help and a question's waiting, where the errand is
  // (askRpcs.ts, K4).
  View,
  Help,
  Asked,
  Answered,
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

// Compile-time check: one RPC for every verb, and no other besides the entity's own, DevTools', the boundary's,
// the person's, the wheel's and the asks'.
type Tags = typeof Errand extends Entity.Entity<'Errand', infer R> ? Rpc.Tag<R> : never
const _oneRpcPerVerb: Same<
  Exclude<
    Tags,
    | 'Heal'
    | 'TakeBack'
    | 'devtools'
    | 'setUpstreamProxy'
    | 'mcpTool'
    | 'Ask'
    | 'Allow'
    | 'TakeWheel'
    | 'HandBack'
    | 'WheelInput'
    | 'Driving'
    | 'View'
    | 'Help'
    | 'Asked'
    | 'Answered'
  >,
  Verb
> = true
void _oneRpcPerVerb
