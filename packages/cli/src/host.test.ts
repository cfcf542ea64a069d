import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { clusterFromEnv } from './host.ts'

const dir = mkdtempSync(join(tmpdir(), 'errands-cli-cluster-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const URL_WITH_PASSWORD = 'postgres://errands:hunter2@10.0.0.5:5432/errands?sslmode=verify-full'

describe('errands host joins a cluster only when ERRANDS_DATABASE_URL is set (issue #16)', () => {
  it('unset: no cluster, nothing said (the single host as before)', async () => {
    const said: string[] = []
    expect(await clusterFromEnv({}, (l) => said.push(l))).toBeUndefined()
    expect(said).toEqual([])
  })

  it(
    'set with its key file: a cluster whose runner port the guard blocks, described without the ' + 'password',
    async () => {
      const keyFile = join(dir, 'cluster.key')
      writeFileSync(keyFile, new Uint8Array(32).fill(7))
      chmodSync(keyFile, 0o600)
      const said: string[] = []
      const cluster = await clusterFromEnv(
        { ERRANDS_DATABASE_URL: URL_WITH_PASSWORD, ERRANDS_CLUSTER_KEY_FILE: keyFile, ERRANDS_CLUSTER_PORT: '7790' },
        (l) => said.push(l),
      )
      expect(typeof cluster === 'object' && cluster.ownPorts).toEqual([7790])
      expect(said.join('')).toContain(
        'cluster runner 127.0.0.1:7790, 300 shards, rebalance 12000 ms, Postgres at 10.0.0.5:5432',
      )
      expect(said.join('')).not.toContain('hunter2')
    },
  )

  it('invalid settings or a missing key file: exit 2, naming the variable (and never the password)', async () => {
    const said: string[] = []
    expect(await clusterFromEnv({ ERRANDS_DATABASE_URL: URL_WITH_PASSWORD }, (l) => said.push(l))).toBe(2)
    expect(
      await clusterFromEnv(
        { ERRANDS_DATABASE_URL: URL_WITH_PASSWORD, ERRANDS_CLUSTER_KEY_FILE: join(dir, 'absent.key') },
        (l) => said.push(l),
      ),
    ).toBe(2)
    expect(
      await clusterFromEnv({ ERRANDS_DATABASE_URL: 'http://x', ERRANDS_CLUSTER_KEY_FILE: 'k' }, (l) => said.push(l)),
    ).toBe(2)
    // TLS words the driver would read otherwise than the check (K2, L7): a repeated sslmode, one libpq does not know.
    for (const query of ['sslmode=verify-full&sslmode=disable', 'sslmode=no-verify', 'sslmode=verify-ca'])
      expect(
        await clusterFromEnv(
          {
            ERRANDS_DATABASE_URL: `postgres://errands:hunter2@10.0.0.5/errands?${query}`,
            ERRANDS_CLUSTER_KEY_FILE: 'k',
          },
          (l) => said.push(l),
        ),
        query,
      ).toBe(2)
    const text = said.join('')
    expect(text).toContain('ERRANDS_DATABASE_URL: invalid value — gives sslmode more than once')
    expect(text).toContain("ERRANDS_DATABASE_URL: invalid value — gives sslmode=no-verify, which is not one of libpq's")
    expect(text).toContain('ERRANDS_DATABASE_URL: invalid value — gives sslmode=verify-ca without sslrootcert')
    expect(text).toContain('ERRANDS_CLUSTER_KEY_FILE: invalid value — must name the file of 32 random bytes')
    expect(text).toContain(`ERRANDS_CLUSTER_KEY_FILE: The cluster key file ${join(dir, 'absent.key')} does not exist`)
    expect(text).toContain('ERRANDS_DATABASE_URL: invalid value — must be a postgres:// or postgresql:// address')
    expect(text).not.toContain('hunter2')
  })
})
