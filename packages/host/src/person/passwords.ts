/**
 * The passwords face of the host (W1–W4, docs/passwords.md): an agent's `POST /v1/fill-password`
 * and `GET /v1/passwords` (sites and user names only), and the person's `/v1/person/passwords`
 * routes over the sealed vault of `@errands/passwords`. A fill names where each part goes
 * (selectors, as the page verbs take them); the vault picks the entry for the active tab's site
 * and the runtime fills stand-ins — no answer carries a password or a TOTP secret.
 *
 * @example
 * const answer = yield* browsing.fillPassword(sessionTarget(key), { password: '#pass', username: '#user' })
 * // { url, title, tab, site: 'shop.example', user: 'ann', filled: 2 }
 */
import {
  fillPlan,
  siteText,
  WrongSite,
  type FillEntry,
  type NoSuchPassword,
  type SeveralPasswords,
  type VaultError,
  type VaultShape,
} from '@errands/passwords'
import type { SecretFill, SecretFillOutcome } from '@errands/runtime'
import { Effect, Either, Option, Schema } from 'effect'
import { PageSummary } from '../answers.ts'
import type { BrowsingError, Target } from '../browsing/Browsing.ts'
import { HostUnavailable } from '../errors.ts'
import { Selector } from '../schemas.ts'

/**
 * A host's own fill of secrets with stand-ins on a target's active tab (`makeBrowsing`'s): `plan` gets the tab's
 * URL and answers the fill. A function, so it never crosses a process; the fill's body does.
 */
export type FillSecrets = <E>(
  target: Target,
  plan: (url: string) => Effect.Effect<SecretFill, E>,
) => Effect.Effect<{ readonly outcome: SecretFillOutcome; readonly page: typeof PageSummary.Type }, BrowsingError | E>

/** How long each field is waited for when the call does not say (ms). */
export const FILL_DEFAULT_TIMEOUT_MS = 10_000

/**
 * `POST /v1/fill-password`: where the user name, the password and the TOTP code go, and which
 * saved sign-in (`site`, `user`) when the page's site alone does not say.
 *
 * @example
 * { username: '#user', password: 'input[type=password]', site: 'shop.example' }
 */
export const FillPasswordBody = Schema.Struct({
  /** The entry's site; the active tab must be on it (else 403 WrongSite). Default: the tab's site. */
  site: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048))),
  /** The entry's user name, when several are saved for the site. */
  user: Schema.optional(Schema.String.pipe(Schema.maxLength(512))),
  /** Where the user name goes (filled as it is). */
  username: Schema.optional(Selector),
  /** Where the password goes (filled with a stand-in). */
  password: Selector,
  /** Where the current TOTP code goes (a stand-in of as many digits). */
  totp: Schema.optional(Selector),
  timeoutMs: Schema.optional(Schema.Int.pipe(Schema.between(100, 120_000))),
})
/** @see FillPasswordBody */
export type FillPasswordBody = typeof FillPasswordBody.Type

/** What a fill answers: where the page is, which sign-in was filled and how many fields. */
export const FillPasswordAnswer = Schema.Struct({
  ...PageSummary.fields,
  site: Schema.String,
  user: Schema.String,
  filled: Schema.Number,
})

/** `GET /v1/passwords`: the sign-ins an agent may know exist (W1). @example { signIns: [{ site, username, totp }] } */
export const SignInsAnswer = Schema.Struct({
  signIns: Schema.Array(Schema.Struct({ site: Schema.String, username: Schema.String, totp: Schema.Boolean })),
})

/** An entry id in a path. @example Schema.is(PasswordId)('0b6f…') // true */
export const PasswordId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9-]{1,64}$/))

/** `POST /v1/person/passwords/import`: a Chrome, Firefox or Bitwarden CSV export's text. */
export const ImportBody = Schema.Struct({
  csv: Schema.String.pipe(Schema.maxLength(1_000_000, { message: () => 'an export of at most 1,000,000 characters' })),
})

/**
 * The vault, or a 501 when this host keeps none.
 *
 * @example
 * yield* withVault(Option.some(vault))
 */
export const withVault = (vault: Option.Option<VaultShape>): Effect.Effect<VaultShape, HostUnavailable> =>
  Option.match(vault, {
    onNone: () =>
      Effect.fail(
        new HostUnavailable({ reason: 'not-wired', message: 'This host keeps no passwords (no vault is wired in).' }),
      ),
    onSome: Effect.succeed,
  })

/** Every way a fill can fail besides the page verbs' own: the vault's, the sign-in's site, no vault here. */
export type FillPasswordError = WrongSite | NoSuchPassword | SeveralPasswords | VaultError | HostUnavailable

/**
 * Fills the saved sign-in for the active tab's site (W2, W3): the vault judges the tab's URL,
 * the runtime each field's frame; either refusal is a 403 `WrongSite` and nothing is filled. It runs
 * where the errand's page is (the browsing verb `fillPassword` calls it there; a cluster carries the body to
 * the owner as data, docs/adr/0053-data-only-verbs-cross-the-cluster.md); `fillSecrets` is that host's own.
 *
 * @example
 * fillPassword({ fillSecrets, vault })(target, { password: '#pass' })
 */
export const fillPassword =
  (deps: { readonly fillSecrets: FillSecrets; readonly vault: Option.Option<VaultShape> }) =>
  (target: Target, body: FillPasswordBody) =>
    Effect.gen(function* () {
      const vault = yield* withVault(deps.vault)
      let chosen: FillEntry | undefined
      const targets = { username: body.username, password: body.password, totp: body.totp }
      const { outcome, page } = yield* deps.fillSecrets(target, (url) =>
        Effect.flatMap(vault.forFill(url, { site: body.site, username: body.user }), (entry) => {
          chosen = entry
          return Either.match(fillPlan(entry, targets, body.timeoutMs ?? FILL_DEFAULT_TIMEOUT_MS), {
            onLeft: Effect.fail,
            onRight: Effect.succeed,
          })
        }),
      )
      const entry = chosen!
      if (outcome._tag === 'wrong-frame')
        return yield* new WrongSite({
          reason: 'wrong-frame',
          message:
            `The field ${outcome.selector.slice(0, 200)} is in a frame of another site than ${siteText(entry.site)}: ` +
            'a saved password is filled only on its own site. Nothing was filled.',
        })
      return { ...page, site: siteText(entry.site), user: entry.username, filled: outcome.fields }
    })
