/**
 * The bodies the door accepts and the answers it gives, as Schemas decoded at the edge. Every
 * route is `POST` with a JSON body: an extension's `GET` carries no `Origin` header (checked on
 * Chromium 156), and the door needs the Origin on every call.
 */
import { Schema } from 'effect'
import { BotId, type LeaseView } from './leases.ts'
import { ObservationAnswer, type ObservationLimits } from './observation.ts'

/**
 * `POST {prefix}/redeem` — the extension redeems the code the person typed into its popup.
 *
 * @example
 * { "code": "7KQ2-M9XD-4TRB" }
 */
export const RedeemBody = Schema.Struct({ code: Schema.String.pipe(Schema.maxLength(64)) })

/**
 * `POST {prefix}/lease/share` — the person pressed "Share current tab read-only".
 *
 * @example
 * { "tabId": 7, "url": "https://mail.example/inbox", "documentId": "A1B2…", "title": "Inbox" }
 */
export const ShareBody = Schema.Struct({
  tabId: Schema.Int,
  url: Schema.String.pipe(
    Schema.maxLength(8192),
    Schema.filter((u) => /^https?:\/\//i.test(u) || 'only http(s) pages can be shared'),
  ),
  documentId: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)),
  title: Schema.String.pipe(Schema.maxLength(2048)),
})

/**
 * `POST {prefix}/lease/poll` — waits up to `waitMs` for observation requests; `inFlight` lists the
 * ones the extension is already working on, so they are not handed out twice.
 *
 * @example
 * { "waitMs": 20000, "inFlight": ["obs-1"] }
 */
export const PollBody = Schema.Struct({
  waitMs: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 25_000)), { default: () => 0 }),
  inFlight: Schema.optionalWith(Schema.Array(Schema.String.pipe(Schema.maxLength(100))).pipe(Schema.maxItems(32)), {
    default: () => [],
  }),
})

/**
 * `POST {prefix}/lease/answer` — the extension's answer to one observation.
 *
 * @example
 * { "id": "obs-1", "url": "…", "documentId": "…", "title": "Inbox", "text": "…", "controls": [] }
 */
export const AnswerBody = ObservationAnswer

/**
 * `POST {prefix}/lease/fail` — the extension could not read the page for one observation.
 *
 * @example
 * { "id": "obs-1", "message": "Cannot access contents of the page." }
 */
export const FailBody = Schema.Struct({
  id: Schema.String.pipe(Schema.maxLength(100)),
  message: Schema.String.pipe(Schema.maxLength(500)),
})

/**
 * `POST {prefix}/lease/event` — the shared tab reloaded, navigated or closed.
 *
 * @example
 * { "event": "navigated" }
 */
export const EventBody = Schema.Struct({ event: Schema.Literal('navigated', 'reloaded', 'tab-closed') })

/**
 * An empty JSON object, for calls that need nothing (`/lease/status`, `/lease/return`).
 *
 * @example
 * {}
 */
export const EmptyBody = Schema.Struct({})

/**
 * `POST {prefix}/admin/pairings`, `/admin/return`, `/admin/approve`, `/admin/observe`,
 * `/admin/status` — the person's side, for one bot.
 *
 * @example
 * { "botId": "persona-bot-7" }
 */
export const BotBody = Schema.Struct({ botId: BotId })

/**
 * `POST {prefix}/admin/revoke` — Browser Access removed, or the bot's target changed.
 *
 * @example
 * { "botId": "persona-bot-7", "cause": "access-removed" }
 */
export const RevokeBody = Schema.Struct({ botId: BotId, cause: Schema.Literal('access-removed', 'target-changed') })

/**
 * A new pairing code for one bot (D1). Show `code` to the person; it works once, for five minutes.
 *
 * @example
 * const { code, expiresAt } = yield* daily.createPairing('bot-1')
 */
export interface PairingCode {
  readonly code: string
  readonly botId: string
  readonly leaseId: string
  readonly expiresAt: number
  /**
   * The lease secret (X3): the person hands it to the one agent session they approve, which
   * presents it (MCP `initialize` with `X-Daily-Lease: <secret>`). Naming the bot id is not
   * enough to read the shared tab. Shown once, kept only as a digest.
   */
  readonly botSecret: string
}

/**
 * What a redeemed code gives the extension: a Bearer token bound to its Origin (D2).
 *
 * @example
 * fetch(`${host}/daily/lease/poll`, { headers: { authorization: `Bearer ${redeemed.token}` } })
 */
export interface Redeemed {
  readonly token: string
  readonly botId: string
  readonly leaseId: string
  readonly expiresAt: number
  readonly pollTimeoutMs: number
  readonly pollWaitMs: number
}

/**
 * One observation the extension should perform.
 *
 * @example
 * { id: 'obs-1', kind: 'observe', limits: { maxTextChars: 20000, maxControls: 200, maxLabelChars: 160 } }
 */
export interface ObservationRequest {
  readonly id: string
  readonly kind: 'observe'
  readonly limits: ObservationLimits
}

/**
 * What a poll returns.
 *
 * @example
 * const { lease, requests } = yield* daily.poll(creds, { waitMs: 20_000, inFlight: [] })
 */
export interface PollResult {
  readonly lease: LeaseView
  readonly requests: ReadonlyArray<ObservationRequest>
}

/**
 * The extension's credentials on a lease call: the Bearer token and the request's `Origin`.
 *
 * @example
 * const creds: Credentials = { token: 'abc…', origin: 'chrome-extension://dmlk…' }
 */
export interface Credentials {
  readonly token: string | undefined
  readonly origin: string | undefined
}
