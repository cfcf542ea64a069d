/**
 * The host's API as declared (B3, issue #24, docs/adr/0025): every route's method, path, access
 * and Schemas, answers included. The page verbs are declared once and mounted twice — under `/v1`
 * for sessions and under `/v1/person/main` for the person's main context (signing in). The route
 * table (`routes.ts`) implements exactly these, `/v1/openapi.json` is generated from them
 * (`openapi.ts`) and the typed client (`client.ts`) calls them.
 *
 * @example
 * api.navigate.path            // '/v1/navigate'
 * api.person.main.tabs.path    // '/v1/person/main/tabs'
 */
import { HelpRequest } from '@errands/sessions'
import { Schema } from 'effect'
import {
  ConsoleAnswer,
  DialogAnswer,
  EvaluateAnswer,
  HtmlAnswer,
  NetworkAnswer,
  InputAnswer,
  PageSummary,
  ScrollAnswer,
  SessionState,
  TaskAnswer,
  TextAnswer,
  UrlAnswer,
} from '../answers.ts'
import {
  DevToolsAnswer,
  Deleted,
  ErrandViewAnswer,
  FetchAnswer,
  HealthAnswer,
  InspectorAnswer,
  LendAnswer,
  LocalhostsAnswer,
  OpenApiAnswer,
  OpenedTab,
  PermissionAnswer,
  PublicHealthAnswer,
  Released,
  SessionProxyAnswer,
  SessionsAnswer,
  SettingsAnswer,
  TabsAnswer,
  TakeBackAnswer,
  ViewportAnswer,
} from '../routeAnswers.ts'
import {
  ClickBody,
  DialogBody,
  DragBody,
  EmptyBody,
  EvaluateBody,
  FileName,
  FillBody,
  FillFormBody,
  UploadBody,
  InputBody,
  InspectorBody,
  LendTarget,
  NavigateBody,
  OwnBrowserBody,
  ProxyBody,
  ScreenshotQuery,
  ScrollBody,
  SiteBody,
  TaskBody,
  TrustBody,
  ViewportBody,
} from '../schemas.ts'
import { bytesAnswer, endpoint } from '@errands/edge'
import { DownloadsAnswer, StagedFile, StageQuery } from '../filesAnswers.ts'
import { HelpAnswer } from '../person/help.ts'
import { EntryPatch, EntryView, ImportReport, NewEntry } from '@errands/passwords'
import { FillPasswordAnswer, FillPasswordBody, ImportBody, PasswordId, SignInsAnswer } from '../person/passwords.ts'
import {
  AnswerBody,
  AnsweredQuestion,
  QuestionId,
  QuestionsAnswer,
  SignInAnswer,
  SignInRequest,
} from '../person/signIn.ts'

/** A tab's public id (`3fa9c1d2-t2`). @example Schema.is(TabId)('3fa9c1d2-t2') // true */
export const TabId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/))

/**
 * A chat id or a session key in a path (checked again by `parseSessionKey`). @example Schema.is(KeyParam)('agent-7')
 * // true
 */
export const KeyParam = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9._:-]{1,128}$/))

/**
 * Whose wheel (P1, issue #26): a session key (its errand is `session:<key>`) or a conversation id
 * (a chat's `chat:<id>`, an embedder's), like the lend target without the site.
 *
 * @example
 * { session: 'agent-7' } // or { conversationId: 'chat:c1' }
 */
export const WheelTarget = Schema.Union(
  Schema.Struct({ session: LendTarget.members[0].fields.session }),
  Schema.Struct({ conversationId: LendTarget.members[1].fields.conversationId }),
)
/** A note for the agent with the hand-back (P3): at most 2,000 characters, never journaled (P5). */
const HandBackNote = Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2_000))))
/** `POST /v1/person/hand-back`. @example { session: 'agent-7', note: 'Solved the captcha' } */
export const HandBackBody = Schema.Union(
  Schema.Struct({ ...WheelTarget.members[0].fields, note: HandBackNote }),
  Schema.Struct({ ...WheelTarget.members[1].fields, note: HandBackNote }),
)
/**
 * `POST /v1/person/hand-back`: the errand's conversation, its wheel now the agents'. @example { conversationId:
 * 'session:agent-7', handedBack: true }
 */
export const HandedBack = Schema.Struct({ conversationId: Schema.String, handedBack: Schema.Literal(true) })

/** A site in a path (any host of it). @example Schema.is(SiteParam)('shop.example') // true */
export const SiteParam = Schema.String.pipe(Schema.maxLength(253))

// What a page verb can answer besides the edge's refusals: the policy (403), a tab or errand not
// there (404), no dialog waiting (409), the page's own refusals and deadlines (422/502/504).
const PAGE = [403, 404, 409, 422, 502, 504]
const FRAME_HEADERS = {
  'X-Frame-Seq': "Frames this session's view received so far (0: a screenshot, no frame had come).",
  'X-Frame-At': 'When the frame was painted (ms since the epoch).',
  'X-Frame-Source': '`screencast`, or `screenshot` when nothing was painted within 1.5 s.',
}

/**
 * The page verbs under `prefix`, for `access`.
 *
 * @example
 * pageVerbs('/v1/person/main', 'person').navigate.path // '/v1/person/main/navigate'
 */
export const pageVerbs = <const P extends string>(prefix: P, access: 'session' | 'person') => ({
  navigate: endpoint('POST', `${prefix}/navigate`, access, {
    summary: 'Go to a URL (after commit and DOMContentLoaded).',
    body: NavigateBody,
    answer: PageSummary,
    errors: PAGE,
  }),
  url: endpoint('GET', `${prefix}/url`, access, { summary: "The active tab's URL.", answer: UrlAnswer, errors: PAGE }),
  text: endpoint('GET', `${prefix}/text`, access, {
    summary: "The page's innerText (at most 1,000,000 characters).",
    answer: TextAnswer,
    errors: PAGE,
  }),
  html: endpoint('GET', `${prefix}/html`, access, {
    summary: "The page's HTML (at most 5,000,000 characters).",
    answer: HtmlAnswer,
    errors: PAGE,
  }),
  screenshot: endpoint('GET', `${prefix}/screenshot`, access, {
    summary: 'A PNG of the viewport, or of the whole page with fullPage=true.',
    query: ScreenshotQuery,
    answer: bytesAnswer(['image/png'], 'The screenshot.'),
    errors: PAGE,
  }),
  click: endpoint('POST', `${prefix}/click`, access, {
    summary: 'Click an element (waits for it, 10 s by default).',
    body: ClickBody,
    answer: PageSummary,
    errors: PAGE,
  }),
  fill: endpoint('POST', `${prefix}/fill`, access, {
    summary: 'Fill an input.',
    body: FillBody,
    answer: PageSummary,
    errors: PAGE,
  }),
  scroll: endpoint('POST', `${prefix}/scroll`, access, {
    summary: 'Scroll by CSS pixels.',
    body: ScrollBody,
    answer: ScrollAnswer,
    errors: PAGE,
  }),
  back: endpoint('POST', `${prefix}/back`, access, {
    summary: 'Go back in history.',
    body: EmptyBody,
    answer: PageSummary,
    errors: PAGE,
  }),
  forward: endpoint('POST', `${prefix}/forward`, access, {
    summary: 'Go forward in history.',
    body: EmptyBody,
    answer: PageSummary,
    errors: PAGE,
  }),
  reload: endpoint('POST', `${prefix}/reload`, access, {
    summary: 'Reload the page.',
    body: EmptyBody,
    answer: PageSummary,
    errors: PAGE,
  }),
  frame: endpoint('GET', `${prefix}/frame`, access, {
    summary: 'The latest live-view frame (starts a screencast).',
    answer: bytesAnswer(['image/jpeg', 'image/png'], 'The frame.', FRAME_HEADERS),
    errors: PAGE,
  }),
  state: endpoint('GET', `${prefix}/state`, access, {
    summary: 'What the session is, read only: never opens or resumes it.',
    answer: SessionState,
    errors: PAGE,
  }),
  dialog: endpoint('POST', `${prefix}/dialog`, access, {
    summary: 'Answer the waiting JavaScript dialog (409 NoDialog when none).',
    body: DialogBody,
    answer: DialogAnswer,
    errors: PAGE,
  }),
  input: endpoint('POST', `${prefix}/input`, access, {
    summary: 'Apply 1–200 mouse, wheel, key and text events in order.',
    body: InputBody,
    answer: InputAnswer,
    errors: PAGE,
  }),
  viewport: endpoint('POST', `${prefix}/viewport`, access, {
    summary: 'Set the viewport (kept across park and resume).',
    body: ViewportBody,
    answer: ViewportAnswer,
    errors: PAGE,
  }),
  tabs: endpoint('GET', `${prefix}/tabs`, access, {
    summary: 'The tabs in their order.',
    answer: TabsAnswer,
    errors: PAGE,
  }),
  openTab: endpoint('POST', `${prefix}/tabs`, access, {
    summary: 'Open and activate a tab.',
    body: NavigateBody,
    answer: OpenedTab,
    errors: PAGE,
  }),
  activateTab: endpoint('POST', `${prefix}/tabs/:id/activate`, access, {
    summary: 'Activate a tab.',
    params: { id: TabId },
    body: EmptyBody,
    answer: TabsAnswer,
    errors: PAGE,
  }),
  closeTab: endpoint('DELETE', `${prefix}/tabs/:id`, access, {
    summary: "Close a tab (idempotent for the session's own tabs).",
    params: { id: TabId },
    answer: TabsAnswer,
    errors: PAGE,
  }),
  // Issue #25: Playwright MCP's tools for agents that speak HTTP.
  evaluate: endpoint('POST', `${prefix}/evaluate`, access, {
    summary:
      "Evaluate a JavaScript expression in the active tab's page: its JSON value (cut at 1,000,000 characters); what " +
      'the page throws is a 422 with its message.',
    body: EvaluateBody,
    answer: EvaluateAnswer,
    errors: PAGE,
  }),
  console: endpoint('GET', `${prefix}/console`, access, {
    summary: "The active tab's console messages since it opened (the newest 500).",
    answer: ConsoleAnswer,
    errors: PAGE,
  }),
  network: endpoint('GET', `${prefix}/network`, access, {
    summary: "The active tab's requests since it opened (the newest 500): method, URL, status, resource type.",
    answer: NetworkAnswer,
    errors: PAGE,
  }),
  fillForm: endpoint('POST', `${prefix}/fill-form`, access, {
    summary: 'Fill, select or check 1–100 fields in order.',
    body: FillFormBody,
    answer: PageSummary,
    errors: PAGE,
  }),
  drag: endpoint('POST', `${prefix}/drag`, access, {
    summary: 'Drag one element onto another (by selectors).',
    body: DragBody,
    answer: PageSummary,
    errors: PAGE,
  }),
  upload: endpoint('POST', `${prefix}/upload`, access, {
    summary: "Set a file input's files to files of the errand's own files folder, by plain name (no path: 400).",
    body: UploadBody,
    answer: PageSummary,
    errors: PAGE,
  }),
})

/** The person's routes (token only). */
const person = {
  health: endpoint('GET', '/v1/person/health', 'person', {
    summary: 'The whole health report: messages in words, the remote endpoint.',
    answer: HealthAnswer,
  }),
  settings: endpoint('GET', '/v1/person/settings', 'person', {
    summary: "The person's browser settings.",
    answer: SettingsAnswer,
    errors: [503],
  }),
  allowAlways: endpoint('POST', '/v1/person/settings/always-allowed', 'person', {
    summary: 'Always allow a site (seeds new errands, L1).',
    body: SiteBody,
    answer: SettingsAnswer,
  }),
  revoke: endpoint('DELETE', '/v1/person/settings/always-allowed/:site', 'person', {
    summary: 'Revoke a site: taken back from every errand, open or parked (L5).',
    params: { site: SiteParam },
    answer: TakeBackAnswer,
  }),
  setTrust: endpoint('PUT', '/v1/person/settings/trust', 'person', {
    summary: 'Set the trust mode.',
    body: TrustBody,
    answer: SettingsAnswer,
  }),
  signOutEverywhere: endpoint('POST', '/v1/person/sign-out-everywhere', 'person', {
    summary: "Wipe every errand's cookies and storage.",
    body: EmptyBody,
    answer: TakeBackAnswer,
  }),
  permission: endpoint('POST', '/v1/person/permission', 'person', {
    summary: 'The permission card for a site in an errand (changes nothing).',
    body: LendTarget,
    answer: PermissionAnswer,
    errors: [404],
  }),
  lend: endpoint('POST', '/v1/person/lend', 'person', {
    summary: 'The person pressed Allow: lend the site’s sign-in to that errand (L2).',
    body: LendTarget,
    answer: LendAnswer,
    errors: [404, 409],
  }),
  ownBrowser: endpoint('POST', '/v1/person/chats/:chat/own-browser', 'person', {
    summary: 'Give a chat a browser of its own, or take it back (E2).',
    params: { chat: KeyParam },
    body: OwnBrowserBody,
    answer: ErrandViewAnswer,
  }),
  deleteChat: endpoint('DELETE', '/v1/person/chats/:chat', 'person', {
    summary: 'The chat was deleted: its errand closes and is forgotten (E3).',
    params: { chat: KeyParam },
    answer: Deleted,
  }),
  sessions: endpoint('GET', '/v1/person/sessions', 'person', {
    summary: "Every conversation's errand.",
    answer: SessionsAnswer,
  }),
  releaseSession: endpoint('DELETE', '/v1/person/sessions/:key', 'person', {
    summary: 'Release a session (idempotent).',
    params: { key: KeyParam },
    answer: Released,
  }),
  inspector: endpoint('GET', '/v1/person/inspector', 'person', {
    summary: 'The XState inspector: on or off, and the page to open.',
    answer: InspectorAnswer,
  }),
  setInspector: endpoint('PUT', '/v1/person/inspector', 'person', {
    summary: 'Switch the XState inspector on or off.',
    body: InspectorBody,
    answer: InspectorAnswer,
    errors: [409],
  }),
  // Issue #26: what errands ask the person (P4), and the person's answer.
  questions: endpoint('GET', '/v1/person/questions', 'person', {
    summary: 'The questions errands are waiting on, oldest first.',
    answer: QuestionsAnswer,
  }),
  answerQuestion: endpoint('POST', '/v1/person/questions/:id', 'person', {
    summary: 'Answer a question: allow lends the sign-in to that errand (L2), deny lends nothing.',
    params: { id: QuestionId },
    body: AnswerBody,
    answer: AnsweredQuestion,
    errors: [404],
  }),
  // P1, P2 (issue #26): the wheel without the live view — what its Take the wheel and Hand back buttons do.
  takeWheel: endpoint('POST', '/v1/person/wheel', 'person', {
    summary:
      "Take the wheel of an errand (resuming it if parked): the agents' acting verbs answer 409 PersonDriving and " +
      'the cap never parks it until the hand-back.',
    body: WheelTarget,
    answer: ErrandViewAnswer,
    errors: [400, 404, 501, 503],
  }),
  handBack: endpoint('POST', '/v1/person/hand-back', 'person', {
    summary:
      'Hand the wheel back, with an optional note that answers every agent waiting on POST /v1/session/help ' +
      '(idempotent).',
    body: HandBackBody,
    answer: HandedBack,
    errors: [404, 501, 503],
  }),
  // W1 (docs/passwords.md): the person's vault; no answer carries a password or a TOTP secret.
  passwords: endpoint('GET', '/v1/person/passwords', 'person', {
    summary: 'The saved sign-ins: site, user name, whether a TOTP secret is kept (never a secret).',
    answer: Schema.Struct({ passwords: Schema.Array(EntryView) }),
    errors: [501, 503],
  }),
  addPassword: endpoint('POST', '/v1/person/passwords', 'person', {
    summary: 'Save a sign-in: site (a registrable domain or an exact origin), user name, password, TOTP secret.',
    body: NewEntry,
    answer: EntryView,
    errors: [501, 503],
  }),
  changePassword: endpoint('PUT', '/v1/person/passwords/:id', 'person', {
    summary: 'Change a saved sign-in: the fields named change (totp: null forgets the TOTP secret).',
    params: { id: PasswordId },
    body: EntryPatch,
    answer: EntryView,
    errors: [404, 501, 503],
  }),
  removePassword: endpoint('DELETE', '/v1/person/passwords/:id', 'person', {
    summary: 'Remove a saved sign-in.',
    params: { id: PasswordId },
    answer: Deleted,
    errors: [404, 501, 503],
  }),
  importPasswords: endpoint('POST', '/v1/person/passwords/import', 'person', {
    summary: 'Import a Chrome, Firefox or Bitwarden CSV export (a sign-in already saved is updated).',
    body: ImportBody,
    answer: ImportReport,
    errors: [501, 503],
  }),
  /** The page verbs on the person's main context (signing in). */
  main: pageVerbs('/v1/person/main', 'person'),
}

/**
 * Every endpoint of the host, by name.
 *
 * @example
 * endpointsOf(api).map((e) => `${e.method} ${e.path}`)
 */
export const api = {
  health: endpoint('GET', '/health', 'open', {
    summary: 'Liveness and counts; nothing that names a conversation (X1).',
    answer: PublicHealthAnswer,
  }),
  openapi: endpoint('GET', '/v1/openapi.json', 'open', {
    summary: 'This API as an OpenAPI 3.1 document.',
    answer: OpenApiAnswer,
  }),
  fetch: endpoint('POST', '/v1/fetch', 'open', {
    summary: 'One GET from the host through the containment policy.',
    body: NavigateBody,
    answer: FetchAnswer,
    errors: [422, 502, 504],
  }),
  localhosts: endpoint('GET', '/v1/localhosts', 'open', {
    summary: 'The configured local ports that answer.',
    answer: LocalhostsAnswer,
  }),
  ...pageVerbs('/v1', 'session'),
  task: endpoint('POST', '/v1/session/task', 'session', {
    summary: "Tell the errand the task's status (E3/E4).",
    body: TaskBody,
    answer: TaskAnswer,
    // 409 PersonDriving: an ending or parking status while a person drives (P2).
    errors: [404, 409],
  }),
  release: endpoint('DELETE', '/v1/session', 'session', {
    summary: "Close and forget the session's errand (idempotent); 409 PersonDriving while a person drives.",
    answer: Released,
    errors: [409],
  }),
  devtools: endpoint('GET', '/v1/session/devtools', 'session', {
    summary: 'A DevTools WebSocket URL for the errand (docs/devtools-endpoint.md).',
    answer: DevToolsAnswer,
    errors: [409, 501],
  }),
  proxy: endpoint('PUT', '/v1/session/proxy', 'session', {
    summary: "The errand's upstream proxy from now on; null for none; 409 PersonDriving while a person drives.",
    body: ProxyBody,
    answer: SessionProxyAnswer,
    errors: [409],
  }),
  // Issue #25: the errand's own files folder (docs/files.md): its downloads, and files staged for /v1/upload.
  downloads: endpoint('GET', '/v1/session/downloads', 'session', {
    summary: "The errand's downloads: name, size, type, when, and from where (without the query).",
    answer: DownloadsAnswer,
    errors: PAGE,
  }),
  download: endpoint('GET', '/v1/session/downloads/:name', 'session', {
    summary: "One file of the errand's folder, by plain name (404 FileNotFound when absent).",
    params: { name: FileName },
    answer: bytesAnswer(['*/*'], 'The file, with the media type its name says.', {
      'Content-Disposition': 'attachment, with the file name.',
    }),
    errors: PAGE,
  }),
  stageFile: endpoint('POST', '/v1/session/files', 'session', {
    summary:
      "Stage a file for /v1/upload: the raw body saved under ?name= (deduplicated: 'a (1).pdf'); 413 over the " +
      'per-file or per-errand cap.',
    query: StageQuery,
    rawBody: 'application/octet-stream',
    answer: StagedFile,
    errors: [...PAGE, 413],
  }),
  signIn: endpoint('POST', '/v1/session/permission', 'session', {
    summary:
      "Ask for a site's sign-in (P4): answers at once when already lent or when trust never lends, else waits for " +
      "the person's Allow or Deny.",
    body: SignInRequest,
    answer: SignInAnswer,
    errors: [404, 409, 503],
  }),
  help: endpoint('POST', '/v1/session/help', 'session', {
    summary:
      'Ask a person for help (P3): waits until they take the wheel in the live view and hand it back (with their ' +
      'note), or the time runs out.',
    body: HelpRequest,
    answer: HelpAnswer,
    errors: [404, 409, 503],
  }),
  // W1–W3 (docs/passwords.md): an agent learns which sign-ins exist and fills one with stand-ins.
  passwords: endpoint('GET', '/v1/passwords', 'session', {
    summary: 'The saved sign-ins an errand may fill: site and user name (never a password or a TOTP secret).',
    answer: SignInsAnswer,
    errors: [501, 503],
  }),
  fillPassword: endpoint('POST', '/v1/fill-password', 'session', {
    summary:
      "Fill the saved sign-in for the active tab's site: the page gets stand-ins, the site's requests the values " +
      '(403 WrongSite on another site, a look-alike or a foreign frame: nothing filled).',
    body: FillPasswordBody,
    answer: FillPasswordAnswer,
    errors: [...PAGE, 501, 503],
  }),
  person,
}

/** The whole declaration's type (what `client.ts` maps over). */
export type Api = typeof api
