/**
 * The JSON bodies the host takes, as Effect Schemas (B3). Bodies are decoded strictly: an unknown
 * field or a wrong type is a 400 that names the field. Nothing here touches a browser.
 *
 * @example
 * Schema.decodeUnknownSync(NavigateBody, { onExcessProperty: 'error' })({ url: 'https://example.com' })
 */
import { isPlainFileName } from '@errands/runtime'
import { Schema } from 'effect'

/** No body, or `{}`: the edge's (`EmptyBody` of @errands/edge). */
export { EmptyBody } from '@errands/edge'

/**
 * A URL string as given (the guard decides it later; here only its shape). @example
 * Schema.is(UrlText)('https://a.example/') // true
 */
export const UrlText = Schema.String.pipe(
  Schema.minLength(1, { message: () => 'must be a non-empty URL' }),
  Schema.maxLength(8192, { message: () => 'must be a URL of at most 8192 characters' }),
  Schema.filter((s) => URL.canParse(s), { message: () => 'must be an absolute URL such as https://example.com/' }),
)

/** A CSS/Playwright selector. @example Schema.is(Selector)('#buy') // true */
export const Selector = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000))

/** An optional per-call deadline for actions that wait for an element (ms). */
const ActionTimeout = Schema.optional(Schema.Int.pipe(Schema.between(100, 120_000)))

/**
 * `POST /v1/navigate`, `POST /v1/tabs`, `POST /v1/fetch`, `POST /v1/person/main/navigate`. @example { url:
 * 'https://example.com' }
 */
export const NavigateBody = Schema.Struct({ url: UrlText })
/** @see NavigateBody */
export type NavigateBody = typeof NavigateBody.Type

/**
 * `PUT /v1/session/proxy` (issue #21): the upstream proxy URL, or `null` for none. Checked by
 * `parseUpstreamProxy` (a 400 naming what is wrong, never the value: it may hold a password, L7).
 *
 * @example
 * Schema.decodeUnknownSync(ProxyBody)({ url: 'http://user:pass@proxy.example:3128' })
 */
export const ProxyBody = Schema.Struct({
  url: Schema.NullOr(
    Schema.String.pipe(
      Schema.maxLength(2048, { message: () => 'an upstream proxy URL of at most 2048 characters, or null' }),
    ),
  ),
})
/** @see ProxyBody */
export type ProxyBody = typeof ProxyBody.Type

/** `POST /v1/click`. @example { selector: '#buy', timeoutMs: 5000 } */
export const ClickBody = Schema.Struct({ selector: Selector, timeoutMs: ActionTimeout })
/** @see ClickBody */
export type ClickBody = typeof ClickBody.Type

/** `POST /v1/fill`. @example { selector: 'input[name=q]', value: 'shoes' } */
export const FillBody = Schema.Struct({
  selector: Selector,
  value: Schema.String.pipe(Schema.maxLength(100_000)),
  timeoutMs: ActionTimeout,
})
/** @see FillBody */
export type FillBody = typeof FillBody.Type

/**
 * `POST /v1/evaluate` (issue #25): a JavaScript expression run in the active tab's page. @example { expression:
 * 'document.title' }
 */
export const EvaluateBody = Schema.Struct({
  expression: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100_000)),
})
/** @see EvaluateBody */
export type EvaluateBody = typeof EvaluateBody.Type

/**
 * `POST /v1/fill-form` (issue #25): fields filled in order — text filled, a `<select>` set to the
 * option of that value or label, a checkbox or radio checked unless the value is `"false"` or `""`.
 *
 * @example
 * { fields: [{ selector: '#name', value: 'Ada' }, { selector: '#agree', value: 'true' }] }
 */
export const FillFormBody = Schema.Struct({
  fields: Schema.Array(
    Schema.Struct({ selector: Selector, value: Schema.String.pipe(Schema.maxLength(100_000)) }),
  ).pipe(Schema.minItems(1), Schema.maxItems(100)),
  timeoutMs: ActionTimeout,
})
/** @see FillFormBody */
export type FillFormBody = typeof FillFormBody.Type

/**
 * `POST /v1/drag` (issue #25): drag the element `from` onto the element `to`. @example { from: '#card', to: '#done' }
 */
export const DragBody = Schema.Struct({ from: Selector, to: Selector, timeoutMs: ActionTimeout })
/** @see DragBody */
export type DragBody = typeof DragBody.Type

/**
 * A plain file name of the errand's files folder: no path separator, not `.` or `..`. @example
 * Schema.is(FileName)('a.pdf') // true
 */
export const FileName = Schema.String.pipe(
  Schema.filter(isPlainFileName, {
    message: () =>
      "must be a plain file name inside the errand's files folder (no / or \\, not . or .., at most 255 characters)",
  }),
)

/**
 * `POST /v1/upload` (issue #25): set a file input's files to these files of the errand's files folder. @example {
 * selector: '#file', names: ['receipt.pdf'] }
 */
export const UploadBody = Schema.Struct({
  selector: Selector,
  names: Schema.Array(FileName).pipe(Schema.minItems(1), Schema.maxItems(20)),
  timeoutMs: ActionTimeout,
})
/** @see UploadBody */
export type UploadBody = typeof UploadBody.Type

const Delta = Schema.Number.pipe(Schema.finite(), Schema.between(-1_000_000, 1_000_000))

/** `POST /v1/scroll` (CSS pixels). @example { dx: 0, dy: 600 } */
export const ScrollBody = Schema.Struct({ dx: Delta, dy: Delta })
/** @see ScrollBody */
export type ScrollBody = typeof ScrollBody.Type

/**
 * `POST /v1/dialog`: accept (a prompt's answer in `promptText`) or dismiss the waiting dialog (#22). @example {
 * accept: true }
 */
export const DialogBody = Schema.Struct({
  accept: Schema.Boolean,
  promptText: Schema.optional(Schema.String.pipe(Schema.maxLength(100_000))),
})
/** @see DialogBody */
export type DialogBody = typeof DialogBody.Type

/** `POST /v1/viewport`. @example { width: 1280, height: 720 } */
export const ViewportBody = Schema.Struct({
  width: Schema.Int.pipe(Schema.between(100, 4096)),
  height: Schema.Int.pipe(Schema.between(100, 4096)),
})
/** @see ViewportBody */
export type ViewportBody = typeof ViewportBody.Type

const Coord = Schema.Number.pipe(Schema.finite(), Schema.between(-100_000, 100_000))

/** One mouse event at viewport coordinates. @example { type: 'mouse', action: 'click', x: 10, y: 20 } */
export const MouseEvent = Schema.Struct({
  type: Schema.Literal('mouse'),
  action: Schema.Literal('move', 'down', 'up', 'click', 'dblclick'),
  x: Coord,
  y: Coord,
  button: Schema.optional(Schema.Literal('left', 'right', 'middle')),
})

/** A wheel turn (at the mouse's position, or at `x`,`y`). @example { type: 'wheel', dx: 0, dy: 300 } */
export const WheelEvent = Schema.Struct({
  type: Schema.Literal('wheel'),
  x: Schema.optional(Coord),
  y: Schema.optional(Coord),
  dx: Coord,
  dy: Coord,
})

/**
 * A key by its name (`Enter`, `a`, `Shift`, `Control+A` for `press`). @example { type: 'key', action: 'press', key:
 * 'Enter' }
 */
export const KeyEvent = Schema.Struct({
  type: Schema.Literal('key'),
  action: Schema.Literal('down', 'up', 'press'),
  key: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64)),
})

/**
 * Text for the focused element: up to 64 characters are typed (keyboard characters as key presses,
 * 256 at most per call); a longer text is a paste, inserted whole with no key events.
 *
 * @example
 * { type: 'text', text: 'hello' }
 */
export const TextEvent = Schema.Struct({
  type: Schema.Literal('text'),
  text: Schema.String.pipe(Schema.maxLength(10_000)),
})

/** One input event. @example { type: 'key', action: 'press', key: 'Tab' } */
export const InputEvent = Schema.Union(MouseEvent, WheelEvent, KeyEvent, TextEvent)
/** @see InputEvent */
export type InputEvent = typeof InputEvent.Type

/**
 * `POST /v1/input`: events applied in order, never interleaved with another call's. @example { events: [{ type:
 * 'text', text: 'hi' }] }
 */
export const InputBody = Schema.Struct({
  events: Schema.Array(InputEvent).pipe(Schema.minItems(1), Schema.maxItems(200)),
})
/** @see InputBody */
export type InputBody = typeof InputBody.Type

/** Task statuses (the errand machine's). @example Schema.is(TaskStatus)('interrupted') // true */
export const TaskStatus = Schema.Literal('running', 'done', 'unverified', 'stopped', 'interrupted', 'failed')

/** `POST /v1/session/task`. @example { status: 'interrupted' } */
export const TaskBody = Schema.Struct({ status: TaskStatus })
/** @see TaskBody */
export type TaskBody = typeof TaskBody.Type

/** `GET /v1/screenshot?fullPage=true`. @example { fullPage: 'true' } */
export const ScreenshotQuery = Schema.Struct({ fullPage: Schema.optional(Schema.Literal('true', 'false')) })

// ---- the person's endpoints ----

/** A site given by the person (any host of it). @example { site: 'www.shop.example' } */
export const SiteBody = Schema.Struct({ site: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(253)) })

/** `PUT /v1/person/settings/trust`. @example { mode: 'ask' } */
export const TrustBody = Schema.Struct({ mode: Schema.Literal('ask', 'auto', 'full') })

/** `POST /v1/person/own-browser/:chat`. @example { on: true } */
export const OwnBrowserBody = Schema.Struct({ on: Schema.Boolean })

/** `PUT /v1/person/inspector`: switch the XState inspector on or off (V3). @example { on: true } */
export const InspectorBody = Schema.Struct({ on: Schema.Boolean })

/**
 * Which conversation a lend is for: a host session key or a raw conversation id (an embedder's). @example { session:
 * 'agent-7', site: 'shop.example' }
 */
export const LendTarget = Schema.Union(
  Schema.Struct({
    session: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)),
    site: SiteBody.fields.site,
  }),
  Schema.Struct({
    conversationId: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
    site: SiteBody.fields.site,
  }),
)
/** @see LendTarget */
export type LendTarget = typeof LendTarget.Type
