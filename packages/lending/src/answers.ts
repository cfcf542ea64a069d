/**
 * What lending answers, as Schemas: the permission card and an Allow's report are these Schemas'
 * types, and in a cluster the errand's owner sends them back to the host the person asked with
 * the same Schemas (issue #24) — so the person reads the owner's answer in the shape one host
 * gives, or an error. `SignIn` is what an Allow lends: the asked host's main-context cookies and
 * localStorage of one site, carried to the owner on the runners' TLS socket only.
 *
 * @example
 * Schema.decodeUnknownSync(LendReport)({ site: 'shop.example', conversationId: 'session:t1', where: 'open', cookies:
 * ['sid@shop.example'], origins: [] })
 */
import { StorageStateSchema } from '@errands/store'
import { Schema } from 'effect'

/**
 * What the permission card for a site in an errand says (L2, L3).
 *
 * - `allowed-always`: the site is always allowed and this errand holds its sign-in (seeded); no card.
 * - `ask`: trust mode `ask` — the person is asked, and the card says Allow **lends sign-in**.
 * - `not-lent`: trust `auto`/`full` — nobody is asked and nothing is lent; the errand acts signed out.
 *
 * @example
 * const p: Permission = { site: 'shop.example', lendsSignIn: true, decision: 'ask' }
 */
export const Permission = Schema.Struct({
  site: Schema.String,
  lendsSignIn: Schema.Boolean,
  decision: Schema.Literal('allowed-always', 'ask', 'not-lent'),
})
/** The permission card. */
export type Permission = typeof Permission.Type

/**
 * What an Allow moved into which errand (names and sites only, L7).
 *
 * @example
 * const r: LendReport = { site: 'shop.example', conversationId: 't1', where: 'open', cookies: ['sid@shop.example'],
 * origins: [] }
 */
export const LendReport = Schema.Struct({
  site: Schema.String,
  conversationId: Schema.String,
  /** `open`: into its live context; `parked`: into its sealed record. */
  where: Schema.Literal('open', 'parked'),
  /** `name@site` of every cookie moved, sorted. */
  cookies: Schema.Array(Schema.String),
  /** Sites of the localStorage origins moved, sorted. */
  origins: Schema.Array(Schema.String),
})
/** An Allow's report. */
export type LendReport = typeof LendReport.Type

/**
 * The sign-in an Allow lends: one site's cookies and localStorage, read from the main context of
 * the host the person pressed Allow on. Cookie values: a secret, never logged.
 *
 * @example
 * const lent: SignIn = { cookies: [], origins: [] }
 */
export const SignIn = StorageStateSchema
/** The sign-in an Allow lends. */
export type SignIn = typeof SignIn.Type
