/**
 * The least-privilege database roles of docs/cluster.md (issue #23), made on a test Postgres
 * with the very statements the docs print: an owner role that creates (and upgrades) the tables
 * on a first start, and the role the hosts run as, which may only read and write them.
 *
 * @example
 * const roles = await makeClusterRoles(pg)
 * // first start as roles.ownerUrl, then every host as roles.hostUrl
 * await roles.drop()
 */
import { randomBytes } from 'node:crypto'
import { SqlClient } from '@effect/sql'
import { PgClient } from '@effect/sql-pg'
import { Effect, ManagedRuntime, Redacted } from 'effect'
import type { TestPostgres } from '../fixtures/postgres.ts'

/**
 * docs/cluster.md's statements, for a database `db`, an owner role and a host role (the docs
 * name them errands_owner and errands; a test names them per run: roles are server-wide).
 *
 * @example
 * leastPrivilegeSql({ db: 'errands', owner: 'errands_owner', host: 'errands', ownerPassword, hostPassword })
 */
export const leastPrivilegeSql = (n: {
  readonly db: string
  readonly owner: string
  readonly host: string
  readonly ownerPassword: string
  readonly hostPassword: string
}): ReadonlyArray<string> => [
  `CREATE ROLE ${n.owner} LOGIN PASSWORD '${n.ownerPassword}'`,
  `CREATE ROLE ${n.host} LOGIN PASSWORD '${n.hostPassword}'`,
  `REVOKE ALL ON DATABASE ${n.db} FROM PUBLIC`,
  `GRANT CONNECT ON DATABASE ${n.db} TO ${n.owner}, ${n.host}`,
  `REVOKE CREATE ON SCHEMA public FROM PUBLIC`,
  `CREATE SCHEMA errands AUTHORIZATION ${n.owner}`,
  `ALTER ROLE ${n.owner} IN DATABASE ${n.db} SET search_path = errands`,
  `ALTER ROLE ${n.host} IN DATABASE ${n.db} SET search_path = errands`,
  `GRANT USAGE, CREATE ON SCHEMA errands TO ${n.host}`,
  `ALTER DEFAULT PRIVILEGES FOR ROLE ${n.owner} IN SCHEMA errands GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ` +
    `${n.host}`,
  `ALTER DEFAULT PRIVILEGES FOR ROLE ${n.owner} IN SCHEMA errands GRANT USAGE ON SEQUENCES TO ${n.host}`,
]

/** The two roles on a test database. */
export interface ClusterRoles {
  /** Connects as the owner (the first start). Holds a password: never log it. */
  readonly ownerUrl: string
  /** Connects as the hosts' role. Holds a password: never log it. */
  readonly hostUrl: string
  readonly host: string
  /**
   * The schema the tables live in. Only the two roles have it on their search_path: anyone else
   * (the superuser a test reads the store as) names it, or reads nothing.
   */
  readonly schema: string
  /** Drops both roles (after the database is gone); errors ignored (a server of its own is gone too). */
  readonly drop: () => Promise<void>
}

const runAll = (url: string, statements: ReadonlyArray<string>) => {
  const db = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(url) }))
  return db
    .runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.forEach(statements, (s) => sql.unsafe(s), { discard: true })),
    )
    .finally(() => db.dispose())
}

/**
 * Makes the roles on `pg`'s database with `leastPrivilegeSql`, as its superuser.
 *
 * @example
 * const roles = await makeClusterRoles(pg)
 */
export const makeClusterRoles = async (pg: TestPostgres): Promise<ClusterRoles> => {
  const suffix = randomBytes(4).toString('hex')
  const names = {
    db: new URL(pg.url).pathname.slice(1) || 'postgres',
    owner: `errands_owner_${suffix}`,
    host: `errands_${suffix}`,
    ownerPassword: randomBytes(12).toString('hex'),
    hostPassword: randomBytes(12).toString('hex'),
  }
  await runAll(pg.url, leastPrivilegeSql(names))
  const as = (user: string, password: string) => {
    const url = new URL(pg.url)
    url.username = user
    url.password = password
    return url.toString()
  }
  const admin = new URL(pg.url)
  admin.pathname = '/postgres'
  return {
    ownerUrl: as(names.owner, names.ownerPassword),
    hostUrl: as(names.host, names.hostPassword),
    host: names.host,
    schema: 'errands',
    drop: () =>
      runAll(admin.toString(), [`DROP ROLE IF EXISTS ${names.host}`, `DROP ROLE IF EXISTS ${names.owner}`]).catch(
        () => undefined,
      ),
  }
}
