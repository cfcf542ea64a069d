/**
 * What the page verbs answer (B3), as Schemas: the types `Browsing` returns are these Schemas'
 * types, and the cluster's errand entity carries each verb's answer with the same Schema from the
 * host that owns the errand to the host that was asked (issue #24, K1) — so an answer can never
 * reach a caller in a shape the host's own API would not give. The route table declares each
 * route's answer with these (and `routeAnswers.ts`'s), and the host encodes what it sends with them.
 *
 * @example
 * Schema.decodeUnknownSync(PageSummary)({ url: 'about:blank', title: '', tab: 'abc-t1' })
 */
import { Schema } from 'effect'

/**
 * A JavaScript dialog waiting for `POST /v1/dialog` (#22).
 *
 * @example
 * const d: DialogView = { type: 'confirm', message: 'Leave?', defaultPrompt: '', tab: 'abc-t1' }
 */
export const DialogView = Schema.Struct({
  type: Schema.Literal('alert', 'confirm', 'prompt', 'beforeunload'),
  message: Schema.String,
  /** A prompt's default text ('' for the other kinds). */
  defaultPrompt: Schema.String,
  /** The public id of its tab. */
  tab: Schema.String,
})
/** A waiting dialog. */
export type DialogView = typeof DialogView.Type

/**
 * One tab of a session, as the API shows it.
 *
 * @example
 * const t: TabView = { id: 'abc-t1', url, title: '', active: true, reason: 'task', lentSites: [] }
 */
export const TabView = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  title: Schema.String,
  active: Schema.Boolean,
  /** Why the context is isolated (E6): `task`, `own-browser`, `main` … */
  reason: Schema.String,
  /** Sites whose sign-ins were lent to this context (E6). */
  lentSites: Schema.Array(Schema.String),
})
/** One tab. */
export type TabView = typeof TabView.Type

/** Tabs in their order. @example Schema.is(Tabs)([]) // true */
export const Tabs = Schema.Array(TabView)

/**
 * Where a page action left the session.
 *
 * @example
 * const s: PageSummary = { url, title: 'Shop', tab: 'abc-t1' }
 */
export const PageSummary = Schema.Struct({
  url: Schema.String,
  title: Schema.String,
  tab: Schema.String,
  /** The action made the page open a JavaScript dialog, which waits for `POST /v1/dialog` (#22). */
  dialog: Schema.optional(DialogView),
})
/** Where an action left the page. */
export type PageSummary = typeof PageSummary.Type

/**
 * The latest screencast frame (or a screenshot when none came yet).
 *
 * @example
 * frame.mime // 'image/jpeg'
 */
export const Frame = Schema.Struct({
  data: Schema.Uint8ArrayFromSelf,
  mime: Schema.Literal('image/jpeg', 'image/png'),
  /** Frames of this session so far (0 for a screenshot taken because no frame had come yet). */
  seq: Schema.Number,
  /** When the frame was painted (ms since the epoch). */
  at: Schema.Number,
  source: Schema.Literal('screencast', 'screenshot'),
})
/** A frame. */
export type Frame = typeof Frame.Type

/** A viewport's size in CSS pixels. @example { width: 1280, height: 800 } */
export const ViewportSize = Schema.Struct({ width: Schema.Number, height: Schema.Number })

/**
 * A session as `GET /v1/state` shows it: read, never opened or resumed.
 *
 * @example
 * state.lifecycle // 'parked'
 */
export const SessionState = Schema.Struct({
  /**
   * `none` (never used or released), `active`, `parked`, `seeding`, `resuming`, `healing`, `closing`, `closed`,
   * `main`.
   */
  lifecycle: Schema.String,
  url: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  tabs: Tabs,
  viewport: Schema.NullOr(ViewportSize),
  input: Schema.Struct({ events: Schema.Number }),
  frame: Schema.Struct({ seq: Schema.Number, at: Schema.NullOr(Schema.Number) }),
  lentSites: Schema.Array(Schema.String),
  lastUsedAt: Schema.NullOr(Schema.Number),
  /** A JavaScript dialog waiting for `POST /v1/dialog` (none while a DevTools client drives the errand). */
  dialog: Schema.NullOr(DialogView),
})
/** A session's state. */
export type SessionState = typeof SessionState.Type

/** `GET /v1/url`. @example { url: 'https://example.com/' } */
export const UrlAnswer = Schema.Struct({ url: Schema.String })
/** `GET /v1/text` (truncated past the host's limit). @example { url, text: 'Hello', truncated: false } */
export const TextAnswer = Schema.Struct({ url: Schema.String, text: Schema.String, truncated: Schema.Boolean })
/** `GET /v1/html` (truncated past the host's limit). @example { url, html: '<html>…', truncated: false } */
export const HtmlAnswer = Schema.Struct({ url: Schema.String, html: Schema.String, truncated: Schema.Boolean })
/** `POST /v1/scroll`: where the page is scrolled to. @example { scrollX: 0, scrollY: 200 } */
export const ScrollAnswer = Schema.Struct({ scrollX: Schema.Number, scrollY: Schema.Number })
/** `POST /v1/input`: how many events were applied. @example { applied: 3 } */
export const InputAnswer = Schema.Struct({ applied: Schema.Number })
/** `POST /v1/dialog`: the dialog answered. */
export const DialogAnswer = Schema.Struct({ answered: DialogView })
/** `POST /v1/task`: the errand's lifecycle after the status. @example { lifecycle: 'parked' } */
export const TaskAnswer = Schema.Struct({ lifecycle: Schema.String })
/**
 * Any JSON value, named so the document holds its schema once. Not `Schema.Unknown`: its
 * generated JSON Schema has an `$id` another answer already carries, and an `$id` may not repeat.
 */
export const JsonValue: Schema.Schema<unknown> = Schema.Any.annotations({
  identifier: 'JsonValue',
  description: 'Any JSON value.',
})

/**
 * `POST /v1/evaluate` (issue #25): the expression's JSON value, or its JSON text cut at 1,000,000
 * characters with `truncated`. A value JSON cannot hold (a function, a node, `undefined`) is `null`.
 *
 * @example
 * { url: 'https://shop.example/', value: { items: 3 }, truncated: false }
 */
export const EvaluateAnswer = Schema.Struct({
  url: Schema.String,
  value: JsonValue,
  truncated: Schema.Boolean,
})

/**
 * A console message of the active tab (`at`: ms since the epoch). @example { type: 'error', text: 'Failed to load',
 * at: 1767225600000 }
 */
export const ConsoleMessage = Schema.Struct({ type: Schema.String, text: Schema.String, at: Schema.Number })

/**
 * `GET /v1/console`: the active tab's newest 500 messages since it opened, oldest first; `dropped` older ones.
 * @example { url, messages: [], dropped: 0 }
 */
export const ConsoleAnswer = Schema.Struct({
  url: Schema.String,
  messages: Schema.Array(ConsoleMessage),
  dropped: Schema.Number,
})

/** A request of the active tab: its status (`null` while unanswered or when it failed) and why it failed. */
export const NetworkRequest = Schema.Struct({
  method: Schema.String,
  url: Schema.String,
  resourceType: Schema.String,
  status: Schema.NullOr(Schema.Number),
  failure: Schema.NullOr(Schema.String),
  at: Schema.Number,
})

/**
 * `GET /v1/network`: the active tab's newest 500 requests since it opened, oldest first; `dropped` older ones.
 * @example { url, requests: [], dropped: 0 }
 */
export const NetworkAnswer = Schema.Struct({
  url: Schema.String,
  requests: Schema.Array(NetworkRequest),
  dropped: Schema.Number,
})

/** A PNG screenshot's bytes. */
export const Png = Schema.Uint8ArrayFromSelf
