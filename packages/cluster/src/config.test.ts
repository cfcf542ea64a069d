import { decodePgOptions } from '@errands/store-pg'
import { Effect, Either, Option, Redacted } from 'effect'
import { describe, expect, it } from 'vitest'
import {
  clusterSettingsFrom,
  describeCluster,
  errandsSettingsFrom,
  explainClusterConfigError,
  explainErrandsConfigError,
  printableCluster,
} from './config.ts'

const DAY_MS = 24 * 60 * 60 * 1000
const decode = (env: Record<string, string>) => Effect.runSync(Effect.either(clusterSettingsFrom(env)))

describe('cluster settings', () => {
  it('no ERRANDS_DATABASE_URL: no cluster (the single host stays as it is)', () => {
    expect(decode({})).toEqual(Either.right(Option.none()))
  })

  it('a database address joins with explicit defaults', () => {
    const s = decode({
      ERRANDS_DATABASE_URL: 'postgres://u:pw@10.0.0.5:5433/errands?sslmode=verify-full',
      ERRANDS_CLUSTER_KEY_FILE: '/etc/errands/cluster.key',
    })
    const settings = Either.getOrThrow(s).pipe(Option.getOrThrow)
    expect({ ...settings, databaseUrl: Redacted.value(settings.databaseUrl) }).toEqual({
      databaseUrl: 'postgres://u:pw@10.0.0.5:5433/errands?sslmode=verify-full',
      host: '127.0.0.1',
      port: 7787,
      shards: 300,
      lockExpiryMs: 12_000,
      handshakeMs: 5_000,
      keyFile: '/etc/errands/cluster.key',
      retention: { maxRecords: 40, maxAgeMs: 14 * DAY_MS },
    })
    // The log line names the database by host and port only (L7: never its password).
    expect(describeCluster(settings)).toBe(
      'cluster runner 127.0.0.1:7787, 300 shards, rebalance 12000 ms, Postgres at 10.0.0.5:5433',
    )
    expect(String(settings.databaseUrl)).not.toContain('pw')
  })

  it('a database without the shared key file stops start-up and says how to make one', () => {
    const s = decode({ ERRANDS_DATABASE_URL: 'postgres://127.0.0.1/errands' })
    const text = explainClusterConfigError(Either.getLeft(s).pipe(Option.getOrThrow))
    expect(text).toContain('ERRANDS_CLUSTER_KEY_FILE: invalid value — must name the file of 32 random bytes')
  })

  it('invalid values stop start-up naming the variable and its range (never clamped)', () => {
    const s = decode({
      ERRANDS_DATABASE_URL: 'mysql://x',
      ERRANDS_CLUSTER_PORT: '70000',
      ERRANDS_CLUSTER_LOCK_EXPIRY_MS: '10',
      ERRANDS_CLUSTER_HANDSHAKE_MS: '0',
    })
    expect(Either.isLeft(s)).toBe(true)
    const text = explainClusterConfigError(Either.getLeft(s).pipe(Option.getOrThrow))
    expect(text).toContain('ERRANDS_DATABASE_URL: invalid value — must be a postgres:// or postgresql:// address')
    expect(text).toContain('ERRANDS_CLUSTER_PORT: invalid value — must be a whole number from 1 to 65535')
    expect(text).toContain('ERRANDS_CLUSTER_LOCK_EXPIRY_MS: invalid value — must be a whole number from 2000 to 600000')
    // The runner socket's handshake deadline (K1), checked like every other setting.
    expect(text).toContain('ERRANDS_CLUSTER_HANDSHAKE_MS: invalid value — must be a whole number from 500 to 60000')
  })

  it('a database off this machine without TLS stops start-up saying why, without the password (issue #23, L7)', () => {
    const s = decode({
      ERRANDS_DATABASE_URL: 'postgres://u:s3cret@10.0.0.5:5433/errands',
      ERRANDS_CLUSTER_KEY_FILE: '/etc/errands/cluster.key',
    })
    const text = explainClusterConfigError(Either.getLeft(s).pipe(Option.getOrThrow))
    expect(text).toBe(
      'ERRANDS_DATABASE_URL: invalid value — names 10.0.0.5, which is not this machine, without TLS: add ' +
        'sslmode=verify-full ' +
        "(or sslmode=require, sslmode=verify-ca, ssl=true) so the sealed errands, the cluster's messages and the " +
        'password do not cross the network in the clear',
    )
    expect(text).not.toContain('s3cret')
    // On this machine it may stay plain.
    expect(
      Either.isRight(
        decode({ ERRANDS_DATABASE_URL: 'postgres://u:s3cret@127.0.0.1:5433/errands', ERRANDS_CLUSTER_KEY_FILE: '/k' }),
      ),
    ).toBe(true)
  })
})

describe('one pass over every ERRANDS_* variable (issue #24)', () => {
  const URL = 'postgres://errands:hunter2@10.0.0.5:5433/errands?sslmode=verify-full'
  const refused = (env: Record<string, string>) =>
    explainErrandsConfigError(
      Either.getLeft(Effect.runSync(Effect.either(errandsSettingsFrom(env)))).pipe(Option.getOrThrow),
    )

  it(
    'names every invalid variable at once — host, supervisor, store, DevTools, proxy, database, cluster, a missing ' +
      'key file — one line each, no value of a secret',
    () => {
      const text = refused({
        ERRANDS_PORT: '0',
        ERRANDS_PAGE_DEADLINE_MS: '5',
        ERRANDS_CDP_URL: 'file:///x',
        ERRANDS_LOCALHOST_PORTS: ',',
        ERRANDS_INSPECT: 'yes',
        ERRANDS_INSPECT_PORT: '70000',
        ERRANDS_AGENT_TOKENS_FILE: '',
        ERRANDS_UPSTREAM_PROXY: 'socks5://me:pr0xypass@proxy:1080',
        ERRANDS_MAX_SESSIONS: '33',
        ERRANDS_SESSION_IDLE_MS: '1',
        ERRANDS_SNAPSHOT_DEBOUNCE_MS: '1',
        ERRANDS_STORE_MAX_RECORDS: '0',
        ERRANDS_STORE_MAX_DAYS: '3651',
        ERRANDS_DEVTOOLS_MAX_FRAME_BYTES: '1',
        ERRANDS_DEVTOOLS_MAX_CONNECTIONS: '65',
        ERRANDS_DEVTOOLS_MAX_IN_FLIGHT: '0',
        ERRANDS_DATABASE_URL: 'mysql://errands:hunter2@db/errands',
        ERRANDS_CLUSTER_HOST: ' ',
        ERRANDS_CLUSTER_PORT: '0',
        ERRANDS_CLUSTER_SHARDS: '5000',
        ERRANDS_CLUSTER_LOCK_EXPIRY_MS: '1',
      })
      expect(
        text
          .split('\n')
          .map((l) => l.split(':')[0])
          .sort(),
      ).toEqual(
        [
          'ERRANDS_PORT',
          'ERRANDS_PAGE_DEADLINE_MS',
          'ERRANDS_CDP_URL',
          'ERRANDS_LOCALHOST_PORTS',
          'ERRANDS_MAX_SESSIONS',
          'ERRANDS_SESSION_IDLE_MS',
          'ERRANDS_SNAPSHOT_DEBOUNCE_MS',
          'ERRANDS_STORE_MAX_RECORDS',
          'ERRANDS_STORE_MAX_DAYS',
          'ERRANDS_INSPECT',
          'ERRANDS_INSPECT_PORT',
          'ERRANDS_AGENT_TOKENS_FILE',
          'ERRANDS_UPSTREAM_PROXY',
          'ERRANDS_DEVTOOLS_MAX_FRAME_BYTES',
          'ERRANDS_DEVTOOLS_MAX_CONNECTIONS',
          'ERRANDS_DEVTOOLS_MAX_IN_FLIGHT',
          'ERRANDS_DATABASE_URL',
          'ERRANDS_CLUSTER_KEY_FILE',
          'ERRANDS_CLUSTER_HOST',
          'ERRANDS_CLUSTER_PORT',
          'ERRANDS_CLUSTER_SHARDS',
          'ERRANDS_CLUSTER_LOCK_EXPIRY_MS',
        ].sort(),
      )
      for (const line of text.split('\n')) expect(line).toMatch(/^ERRANDS_[A-Z_]+: invalid value — (must|names) /)
      expect(text).toContain('ERRANDS_STORE_MAX_RECORDS: invalid value — must be a whole number from 1 to 100000')
      expect(text).toContain('ERRANDS_STORE_MAX_DAYS: invalid value — must be a whole number from 1 to 3650')
      expect(text).toContain(
        'ERRANDS_DEVTOOLS_MAX_FRAME_BYTES: invalid value — must be a whole number from 1024 to 268435456',
      )
      expect(text).toContain('ERRANDS_DATABASE_URL: invalid value — must be a postgres:// or postgresql:// address')
      expect(text).not.toContain('hunter2')
      expect(text).not.toContain('pr0xypass')
    },
  )

  it("a database without its key file is named with the host's bad variables", () => {
    expect(
      refused({ ERRANDS_DATABASE_URL: URL, ERRANDS_PORT: '0' })
        .split('\n')
        .map((l) => l.split(':')[0])
        .sort(),
    ).toEqual(['ERRANDS_CLUSTER_KEY_FILE', 'ERRANDS_PORT'])
  })

  it("the cluster's Postgres store gets the configured retention (S2), checked as the store checks it", () => {
    const settings = Effect.runSync(
      errandsSettingsFrom({
        ERRANDS_DATABASE_URL: URL,
        ERRANDS_CLUSTER_KEY_FILE: '/k',
        ERRANDS_STORE_MAX_RECORDS: '7',
        ERRANDS_STORE_MAX_DAYS: '3',
      }),
    )
    const cluster = Option.getOrThrow(settings.cluster)
    expect(cluster.retention).toEqual({ maxRecords: 7, maxAgeMs: 3 * DAY_MS })
    expect(settings.host.supervisor.retention).toEqual(cluster.retention)
    // What hostCluster hands PgSealedStore.layer: the store's own option check keeps it as it is.
    const options = Either.getOrThrow(decodePgOptions({ key: Redacted.make(new Uint8Array(32)), ...cluster.retention }))
    expect(options.retention).toEqual({ maxRecords: 7, maxAgeMs: 3 * DAY_MS })
  })

  it('printableCluster shows the database as host and port only', () => {
    const cluster = Option.getOrThrow(
      Effect.runSync(clusterSettingsFrom({ ERRANDS_DATABASE_URL: URL, ERRANDS_CLUSTER_KEY_FILE: '/k' })),
    )
    const printed = JSON.stringify(printableCluster(cluster))
    expect(printed).toContain('"database":"10.0.0.5:5433"')
    expect(printed).not.toContain('hunter2')
  })
})
