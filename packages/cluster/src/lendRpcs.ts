/**
 * The person's permission card and Allow for a session's errand, as RPCs of its entity (issue
 * #24): both read or change the errand, which lives on one runner, so they run there. Asked of
 * any other host, an Allow lent into the sealed record of an errand open elsewhere ("where:
 * parked"), which the owner's next park overwrote: the person was told it worked and nothing
 * reached the errand.
 *
 * `Allow` carries the sign-in the asked host read from its own main context — the browser the
 * person pressed Allow in — to the owner, which lends exactly that site's part of it. It is a
 * secret like the upstream proxy: it travels only on the runners' TLS socket, is never
 * persisted (no RPC of the entity is) and never logged. Answers and errors come back with
 * lending's Schemas, so the person reads the owner's words.
 *
 * @example
 * const report = yield* client('task-42').Allow({ site: 'shop.example', signIn })
 */
import { Rpc } from '@effect/rpc'
import { LendFailed, LendRefused, LendReport, Permission, SettingsError, SignIn } from '@errands/lending'
import { Schema } from 'effect'

/**
 * The card for `site` in the entity's errand (changes nothing).
 *
 * @example
 * client(key).Ask({ site: 'shop.example' })
 */
export const Ask = Rpc.make('Ask', {
  payload: { site: Schema.String },
  success: Permission,
  error: Schema.Union(LendRefused, SettingsError),
})

/**
 * The person pressed Allow on another host: lend `signIn` (that host's main context, one site)
 * into the entity's errand, open or parked, on the runner that holds it.
 *
 * @example
 * client(key).Allow({ site: 'shop.example', signIn })
 */
export const Allow = Rpc.make('Allow', {
  payload: { site: Schema.String, signIn: SignIn },
  success: LendReport,
  error: Schema.Union(LendRefused, LendFailed, SettingsError),
})
