import { Effect, Either, Option, Redacted } from 'effect'
import { describe, expect, it } from 'vitest'
import { clusterSettingsFrom, describeCluster, explainClusterConfigError } from './config.ts'

const decode = (env: Record<string, string>) => Effect.runSync(Effect.either(clusterSettingsFrom(env)))

describe('cluster settings', () => {
  it('no ERRANDS_DATABASE_URL: no cluster (the single host stays as it is)', () => {
    expect(decode({})).toEqual(Either.right(Option.none()))
  })

  it('a database address joins with explicit defaults', () => {
    const s = decode({ ERRANDS_DATABASE_URL: 'postgres://u:pw@10.0.0.5:5433/errands?sslmode=verify-full', ERRANDS_CLUSTER_KEY_FILE: '/etc/errands/cluster.key' })
    const settings = Either.getOrThrow(s).pipe(Option.getOrThrow)
    expect({ ...settings, databaseUrl: Redacted.value(settings.databaseUrl) }).toEqual({
      databaseUrl: 'postgres://u:pw@10.0.0.5:5433/errands?sslmode=verify-full', host: '127.0.0.1', port: 7787, shards: 300, lockExpiryMs: 12_000,
      keyFile: '/etc/errands/cluster.key',
    })
    // The log line names the database by host and port only (L7: never its password).
    expect(describeCluster(settings)).toBe('cluster runner 127.0.0.1:7787, 300 shards, rebalance 12000 ms, Postgres at 10.0.0.5:5433')
    expect(String(settings.databaseUrl)).not.toContain('pw')
  })

  it('a database without the shared key file stops start-up and says how to make one', () => {
    const s = decode({ ERRANDS_DATABASE_URL: 'postgres://127.0.0.1/errands' })
    const text = explainClusterConfigError(Either.getLeft(s).pipe(Option.getOrThrow))
    expect(text).toContain('ERRANDS_CLUSTER_KEY_FILE: invalid value — must name the file of 32 random bytes')
  })

  it('invalid values stop start-up naming the variable and its range (never clamped)', () => {
    const s = decode({ ERRANDS_DATABASE_URL: 'mysql://x', ERRANDS_CLUSTER_PORT: '70000', ERRANDS_CLUSTER_LOCK_EXPIRY_MS: '10' })
    expect(Either.isLeft(s)).toBe(true)
    const text = explainClusterConfigError(Either.getLeft(s).pipe(Option.getOrThrow))
    expect(text).toContain('ERRANDS_DATABASE_URL: invalid value — must be a postgres:// or postgresql:// address')
    expect(text).toContain('ERRANDS_CLUSTER_PORT: invalid value — must be a whole number from 1 to 65535')
    expect(text).toContain('ERRANDS_CLUSTER_LOCK_EXPIRY_MS: invalid value — must be a whole number from 2000 to 600000')
  })

  it('a database off this machine without TLS stops start-up saying why, without the password (issue #23, L7)', () => {
    const s = decode({ ERRANDS_DATABASE_URL: 'postgres://u:s3cret@10.0.0.5:5433/errands', ERRANDS_CLUSTER_KEY_FILE: '/etc/errands/cluster.key' })
    const text = explainClusterConfigError(Either.getLeft(s).pipe(Option.getOrThrow))
    expect(text).toBe('ERRANDS_DATABASE_URL: invalid value — names 10.0.0.5, which is not this machine, without TLS: add sslmode=verify-full '
      + "(or sslmode=require, sslmode=verify-ca, ssl=true) so the sealed errands, the cluster's messages and the password do not cross the network in the clear")
    expect(text).not.toContain('s3cret')
    // On this machine it may stay plain.
    expect(Either.isRight(decode({ ERRANDS_DATABASE_URL: 'postgres://u:s3cret@127.0.0.1:5433/errands', ERRANDS_CLUSTER_KEY_FILE: '/k' }))).toBe(true)
  })
})
