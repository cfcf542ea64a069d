/**
 * From a vault entry to the runtime's fill (W2, W3): the user name is filled as it is, the
 * password and the TOTP code as stand-ins whose values only requests to the entry's site get —
 * the password as saved, the TOTP code computed when the request leaves.
 *
 * @example
 * const fill = fillPlan(entry, { username: '#user', password: '#pass' }, 10_000)
 * yield* runtime.secrets!.fill(contextId, tabId, fill)
 */
import type { SecretFill, SecretFillField } from '@errands/runtime'
import { NoSuchPassword } from './errors.ts'
import { siteAllows, siteText } from './site.ts'
import { totpCode, totpDigits } from './totp.ts'
import type { FillEntry } from './Vault.ts'
import { Either, Redacted } from 'effect'

/** Where each part goes: selectors, as the page verbs take them. */
export interface FillTargets {
  readonly username?: string | undefined
  readonly password: string
  readonly totp?: string | undefined
}

/**
 * The runtime's fill for `entry`; `NoSuchPassword('no-totp')` when a TOTP field is named and the
 * entry keeps no TOTP secret.
 *
 * @example
 * Either.getOrThrow(fillPlan(entry, { password: '#pass', totp: '#code' }, 10_000)).fields.length // 2
 */
export const fillPlan = (
  entry: FillEntry,
  targets: FillTargets,
  timeoutMs: number,
  now: () => number = Date.now,
): Either.Either<SecretFill, NoSuchPassword> => {
  const fields: Array<SecretFillField> = []
  if (targets.username !== undefined)
    fields.push({ selector: targets.username, value: { _tag: 'plain', text: entry.username } })
  const password = entry.password
  fields.push({
    selector: targets.password,
    value: { _tag: 'secret', secret: { shape: 'token', reveal: () => Redacted.value(password) } },
  })
  if (targets.totp !== undefined) {
    const totp = entry.totp
    if (totp === undefined)
      return Either.left(
        new NoSuchPassword({
          reason: 'no-totp',
          message:
            `The sign-in saved for ${siteText(entry.site)} keeps no TOTP secret; ` +
            'leave "totp" out or ask the person.',
        }),
      )
    fields.push({
      selector: targets.totp,
      value: {
        _tag: 'secret',
        secret: {
          shape: 'digits',
          digits: totpDigits(Redacted.value(totp)),
          reveal: () => totpCode(Redacted.value(totp), now()),
        },
      },
    })
  }
  const site = entry.site
  return Either.right({
    fields,
    destination: { label: siteText(site), allows: (url) => siteAllows(site, url) },
    timeoutMs,
  })
}
