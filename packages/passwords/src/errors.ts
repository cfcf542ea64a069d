/**
 * The errors of `@errands/passwords` (STYLE §5). Each knows its HTTP status; messages name sites
 * (a registrable domain or an origin) and user names at most — never a password, a TOTP secret,
 * a page's path or query (W4).
 *
 * @example
 * vault.forFill(url, {}).pipe(Effect.catchTag('WrongSite', (e) => Effect.logWarning(e.message)))
 */
import { Schema } from 'effect'

/**
 * The active tab is not on the entry's site (a look-alike, another site): nothing was filled, as
 * a browser's own autofill refuses.
 *
 * @example
 * new WrongSite({ reason: 'wrong-site', message: '…' }).status // 403
 */
export class WrongSite extends Schema.TaggedError<WrongSite>()('WrongSite', {
  reason: Schema.Literal('wrong-site', 'wrong-frame'),
  message: Schema.String,
}) {
  readonly status = 403
}

/**
 * No saved password fits: none for this site (`no-entry`), or no entry with that id (`unknown-id`).
 *
 * @example
 * new NoSuchPassword({ reason: 'no-entry', message: '…' }).status // 404
 */
export class NoSuchPassword extends Schema.TaggedError<NoSuchPassword>()('NoSuchPassword', {
  reason: Schema.Literal('no-entry', 'unknown-id', 'no-totp'),
  message: Schema.String,
}) {
  readonly status = 404
}

/**
 * Several saved sign-ins fit the site and the call named none of their user names.
 *
 * @example
 * new SeveralPasswords({ reason: 'several-entries', message: '…' }).status // 409
 */
export class SeveralPasswords extends Schema.TaggedError<SeveralPasswords>()('SeveralPasswords', {
  reason: Schema.Literal('several-entries'),
  message: Schema.String,
}) {
  readonly status = 409
}

/**
 * An entry, a patch or an import the vault does not take: which part is wrong is the reason; the
 * message says what to send instead and never quotes a password or a TOTP secret.
 *
 * @example
 * new InvalidPasswordEntry({ reason: 'site', message: '…' }).status // 400
 */
export class InvalidPasswordEntry extends Schema.TaggedError<InvalidPasswordEntry>()('InvalidPasswordEntry', {
  reason: Schema.Literal('site', 'username', 'password', 'totp', 'csv', 'too-many'),
  message: Schema.String,
}) {
  readonly status = 400
}

/**
 * The vault cannot be read or written: its sealed file was changed, cut short or sealed under
 * another key (`unreadable`), or the disk or database failed (`io`). Nothing was changed.
 *
 * @example
 * new VaultUnavailable({ reason: 'io', message: '…' }).status // 503
 */
export class VaultUnavailable extends Schema.TaggedError<VaultUnavailable>()('VaultUnavailable', {
  reason: Schema.Literal('unreadable', 'io'),
  message: Schema.String,
}) {
  readonly status = 503
}

/**
 * This errand's browser cannot rewrite its requests before the wire (a remote DevTools browser,
 * the memory runtime), so a password cannot be filled there: ask the person for help instead.
 *
 * @example
 * new FillUnsupported({ reason: 'no-interception', message: '…' }).status // 501
 */
export class FillUnsupported extends Schema.TaggedError<FillUnsupported>()('FillUnsupported', {
  reason: Schema.Literal('no-interception'),
  message: Schema.String,
}) {
  readonly status = 501
}

/** Every error of the vault's own calls. */
export type VaultError = InvalidPasswordEntry | NoSuchPassword | VaultUnavailable
