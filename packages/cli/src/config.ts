/**
 * The one configuration pass of `errands config` and `errands host` (issue #24): every
 * `ERRANDS_*` variable decoded together, every bad one named at once (one line each with what it
 * accepts, never a secret's value), exit 2 before anything starts.
 *
 * ```ts
 * case 'config':
 *   return runConfig(process.env, process.stdout, process.stderr)
 * ```
 *
 * @example
 * const decoded = await decodeConfig(process.env) // Either<ErrandsSettings, "ERRANDS_PORT: invalid value — …">
 */
import type { ErrandsSettings } from '@errands/cluster'
import { explainHostConfigError, hostSettingsFrom, printableSettings } from '@errands/host'
import { Effect, Either, Option } from 'effect'

/**
 * Whether any cluster variable is set. Only then is `@errands/cluster` (with `@effect/cluster`)
 * loaded: a single host starts about a second sooner without it.
 *
 * @example
 * wantsCluster({ ERRANDS_CLUSTER_PORT: '7790' }) // true
 */
export const wantsCluster = (env: Record<string, string | undefined>): boolean =>
  Object.keys(env).some((name) => name === 'ERRANDS_DATABASE_URL' || name.startsWith('ERRANDS_CLUSTER_'))

/**
 * Every setting of `errands host`, or the lines naming every invalid variable. With no cluster
 * variable set this decodes the host's part only: the cluster's part would be all defaults and
 * `None`, and the store's retention, which both read, is in the host's part.
 *
 * @example
 * const decoded = await decodeConfig({ ERRANDS_PORT: '0', ERRANDS_STORE_MAX_DAYS: '0' })
 * Either.getLeft(decoded) // Some("ERRANDS_PORT: invalid value — …\nERRANDS_STORE_MAX_DAYS: invalid value — …")
 */
export const decodeConfig = async (
  env: Record<string, string | undefined>,
): Promise<Either.Either<ErrandsSettings, string>> => {
  if (!wantsCluster(env)) {
    return Either.mapBoth(Effect.runSync(Effect.either(hostSettingsFrom(env))), {
      onLeft: explainHostConfigError,
      onRight: (host): ErrandsSettings => ({ host, cluster: Option.none() }),
    })
  }
  const { errandsSettingsFrom, explainErrandsConfigError } = await import('@errands/cluster')
  return Either.mapLeft(Effect.runSync(Effect.either(errandsSettingsFrom(env))), explainErrandsConfigError)
}

/** Where `errands config` writes. */
export interface ConfigIo {
  readonly stdout: { write: (text: string) => unknown }
  readonly stderr: { write: (text: string) => unknown }
}

/**
 * `errands config`: prints every setting as JSON (secrets as host and port only) and returns 0,
 * or names every invalid variable on stderr and returns 2.
 *
 * @example
 * process.exitCode = await runConfig(process.env, process)
 */
export const runConfig = async (env: Record<string, string | undefined>, io: ConfigIo): Promise<number> => {
  const decoded = await decodeConfig(env)
  if (Either.isLeft(decoded)) {
    io.stderr.write(`Invalid configuration:\n${decoded.left}\n`)
    return 2
  }
  const { host, cluster } = decoded.right
  const printableCluster = Option.isNone(cluster)
    ? null
    : (await import('@errands/cluster')).printableCluster(cluster.value)
  io.stdout.write(`${JSON.stringify({ ...printableSettings(host), cluster: printableCluster }, null, 2)}\n`)
  return 0
}
