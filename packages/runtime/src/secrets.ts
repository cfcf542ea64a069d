/**
 * The secret-filling capability of the runtime contract (W1–W4, docs/passwords.md): a runtime
 * puts a **stand-in** into a page's field — a fresh random token per fill, never the value — and
 * its request interception writes the value into the requests that leave for the destination
 * the caller named, just before the wire. A stand-in sent anywhere else leaves as it is and is
 * reported (`withheld`).
 *
 * The runtime holds no policy: the caller (the host, through `@errands/passwords`) says which
 * URLs may receive the value (`destination.allows`) and how to compute it (`reveal`, called as
 * each request leaves, so a TOTP code is always the current one).
 *
 * @example
 * const outcome = yield* runtime.secrets!.fill(contextId, 't1', {
 *   fields: [{ selector: '#user', value: { _tag: 'plain', text: 'ann' } },
 *            { selector: '#pass', value: { _tag: 'secret', secret: { reveal: () => pw, shape: 'token' } } }],
 *   destination: { label: 'shop.example', allows: (url) => siteOf(new URL(url).hostname) === 'shop.example' },
 *   timeoutMs: 10_000,
 * })
 */
import type { Effect } from 'effect'
import type { ContextError } from './Runtime.ts'
import type { ContextId } from './types.ts'

/**
 * A secret as the runtime gets it: a way to compute it at the moment a request leaves, and the
 * shape of its stand-in — a random token, or `digits` random digits for a field that takes a
 * one-time code (`pattern="\d{6}"`, `maxlength=6`).
 */
export interface SecretValue {
  readonly reveal: () => string
  readonly shape: 'token' | 'digits'
  /** The stand-in's digits (`shape: 'digits'`); 6 when absent. */
  readonly digits?: number | undefined
}

/** Where a secret may go: a label for logs and answers (a site, never a path) and the rule itself. */
export interface SecretDestination {
  readonly label: string
  readonly allows: (url: string) => boolean
}

/** One field to fill: a plain value (a user name, filled as it is) or a secret (filled with a stand-in). */
export interface SecretFillField {
  readonly selector: string
  readonly value:
    | { readonly _tag: 'plain'; readonly text: string }
    | { readonly _tag: 'secret'; readonly secret: SecretValue }
}

/** A fill: its fields in order, the destination of its secrets, and how long to wait for each field. */
export interface SecretFill {
  readonly fields: ReadonlyArray<SecretFillField>
  readonly destination: SecretDestination
  readonly timeoutMs: number
}

/**
 * What a fill came to: `filled`, or `wrong-frame` when a field sits in a frame whose URL the
 * destination does not allow (a look-alike's iframe on the right page): then nothing was filled.
 */
export type SecretFillOutcome =
  | { readonly _tag: 'filled'; readonly fields: number }
  | { readonly _tag: 'wrong-frame'; readonly selector: string }

/** The counts a runtime keeps: stand-ins swapped into requests, and stand-ins withheld from another destination. */
export interface SecretCounts {
  readonly live: number
  readonly swapped: number
  readonly withheld: number
}

/**
 * The secret verbs of a runtime. Absent in a runtime whose requests it cannot rewrite before
 * the wire (the memory runtime, a remote DevTools browser).
 *
 * @example
 * if (runtime.secrets === undefined) return yield* new Unsupported(...)
 */
export interface SecretVerbs {
  /** Fills the fields in order, each secret with a fresh stand-in that lives until its context closes or it expires. */
  readonly fill: (
    contextId: ContextId,
    tabId: string,
    fill: SecretFill,
  ) => Effect.Effect<SecretFillOutcome, ContextError>
  /** The counts so far. */
  readonly counts: () => SecretCounts
}
