import { errandsSettingsFrom, explainErrandsConfigError } from '@errands/cluster'
import { Effect, Either, Option } from 'effect'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { decodeConfig, runConfig, wantsCluster } from './config.ts'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..')
const DAY_MS = 24 * 60 * 60 * 1000
const URL_WITH_PASSWORD = 'postgres://errands:hunter2@10.0.0.5:5432/errands?sslmode=verify-full'

/** Bad values of host, supervisor, store, DevTools and proxy variables: no cluster variable among them. */
const BAD_SINGLE_HOST = {
  ERRANDS_PORT: '0',
  ERRANDS_MAX_SESSIONS: '33',
  ERRANDS_STORE_MAX_RECORDS: '100001',
  ERRANDS_STORE_MAX_DAYS: '0',
  ERRANDS_DEVTOOLS_MAX_CONNECTIONS: '0',
  ERRANDS_UPSTREAM_PROXY: 'ftp://me:pr0xypass@proxy:21',
}

const withoutOurs = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('ERRANDS_')))

const run = async (env: Record<string, string>) => {
  const out: string[] = []
  const err: string[] = []
  const code = await runConfig(env, {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
  })
  return { code, stdout: out.join(''), stderr: err.join('') }
}

describe('errands config: the one pass over every ERRANDS_* variable (issue #24)', () => {
  it('nothing set: the defaults, the store keeping 40 parked sessions for 14 days, no cluster', async () => {
    const s = Either.getOrThrow(await decodeConfig({}))
    expect(s.host.port).toBe(7777)
    expect(s.host.supervisor.retention).toEqual({ maxRecords: 40, maxAgeMs: 14 * DAY_MS })
    expect(Option.isNone(s.cluster)).toBe(true)
  })

  it('names every invalid variable at once, one line each with what it accepts, never a secret', async () => {
    const r = await run(BAD_SINGLE_HOST)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(
      r.stderr
        .split('\n')
        .filter((l) => l.startsWith('ERRANDS_'))
        .sort(),
    ).toEqual([
      'ERRANDS_DEVTOOLS_MAX_CONNECTIONS: invalid value — must be a whole number from 1 to 64',
      'ERRANDS_MAX_SESSIONS: invalid value — must be a whole number from 1 to 32',
      'ERRANDS_PORT: invalid value — must be a whole number from 1 to 65535',
      'ERRANDS_STORE_MAX_DAYS: invalid value — must be a whole number from 1 to 3650',
      'ERRANDS_STORE_MAX_RECORDS: invalid value — must be a whole number from 1 to 100000',
      'ERRANDS_UPSTREAM_PROXY: invalid value — must be an http:// or https:// proxy address ' +
        '(http://user:pass@host:port), with no path',
    ])
    expect(r.stderr).not.toContain('pr0xypass')
  })

  it(
    'without a cluster variable it says exactly what the full pass says (the cluster part has nothing to ' + 'decode)',
    async () => {
      expect(wantsCluster(BAD_SINGLE_HOST)).toBe(false)
      const full = Either.getLeft(Effect.runSync(Effect.either(errandsSettingsFrom(BAD_SINGLE_HOST)))).pipe(
        Option.getOrThrow,
      )
      expect(Either.getLeft(await decodeConfig(BAD_SINGLE_HOST))).toEqual(Option.some(explainErrandsConfigError(full)))
    },
  )

  it("with cluster variables, their bad values join the host's in the same report", async () => {
    const r = await run({ ...BAD_SINGLE_HOST, ERRANDS_DATABASE_URL: URL_WITH_PASSWORD, ERRANDS_CLUSTER_SHARDS: '0' })
    expect(r.code).toBe(2)
    const names = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('ERRANDS_'))
      .map((l) => l.split(':')[0])
    expect(names).toEqual(
      expect.arrayContaining([
        'ERRANDS_PORT',
        'ERRANDS_STORE_MAX_DAYS',
        'ERRANDS_CLUSTER_SHARDS',
        'ERRANDS_CLUSTER_KEY_FILE',
      ]),
    )
    expect(names).toHaveLength(8)
    expect(r.stderr).not.toContain('hunter2')
  })

  it('valid: prints every setting as JSON, the retention configured, secrets as host and port only', async () => {
    const r = await run({
      ERRANDS_STORE_MAX_RECORDS: '100000',
      ERRANDS_STORE_MAX_DAYS: '3650',
      ERRANDS_UPSTREAM_PROXY: 'http://me:pr0xypass@proxy.example:3128',
      ERRANDS_DATABASE_URL: URL_WITH_PASSWORD,
      ERRANDS_CLUSTER_KEY_FILE: '/etc/errands/cluster.key',
    })
    expect(r.code).toBe(0)
    const printed = JSON.parse(r.stdout)
    expect(printed.supervisor.retention).toEqual({ maxRecords: 100_000, maxAgeMs: 3650 * DAY_MS })
    expect(printed.cluster).toMatchObject({ database: '10.0.0.5:5432', retention: { maxRecords: 100_000 } })
    expect(printed.upstreamProxy).toBe('http://proxy.example:3128')
    expect(r.stdout).not.toContain('hunter2')
    expect(r.stdout).not.toContain('pr0xypass')
  })

  it('the command itself: `errands config` exits 2 naming both bad variables and prints nothing on stdout', () => {
    // The packed binary, as `npx errands config` runs it (the unit tier's globalSetup builds dist/).
    const p = spawnSync(process.execPath, [path.join(root, 'packages/cli/dist/main.js'), 'config'], {
      // Only these two of ours: whatever ERRANDS_* the test run itself has stays out.
      encoding: 'utf8',
      env: { ...withoutOurs(process.env), ERRANDS_STORE_MAX_RECORDS: '0', ERRANDS_CLUSTER_PORT: '70000' },
    })
    expect(p.status).toBe(2)
    expect(p.stdout).toBe('')
    expect(p.stderr).toContain('ERRANDS_STORE_MAX_RECORDS: invalid value — must be a whole number from 1 to 100000')
    expect(p.stderr).toContain('ERRANDS_CLUSTER_PORT: invalid value — must be a whole number from 1 to 65535')
  }, 30_000)

  it("the packed `errands host` with three bad variables: exit 2, all three named, the proxy's password never, " +
    'nothing created or started', () => {
    const parent = mkdtempSync(path.join(tmpdir(), 'errands-cli-config-'))
    const dataDir = path.join(parent, 'data')
    try {
      const p = spawnSync(process.execPath, [path.join(root, 'packages/cli/dist/main.js'), 'host'], {
        encoding: 'utf8',
        timeout: 20_000,
        env: {
          ...withoutOurs(process.env),
          ERRANDS_DATA_DIR: dataDir,
          ERRANDS_PORT: '0',
          ERRANDS_STORE_MAX_DAYS: '3651',
          ERRANDS_UPSTREAM_PROXY: 'ftp://me:pr0xypass@proxy:21',
        },
      })
      expect(p.status).toBe(2)
      expect(p.stdout).not.toContain('listening')
      expect(
        p.stderr
          .split('\n')
          .filter((l) => l.startsWith('ERRANDS_'))
          .map((l) => l.split(':')[0])
          .sort(),
      ).toEqual(['ERRANDS_PORT', 'ERRANDS_STORE_MAX_DAYS', 'ERRANDS_UPSTREAM_PROXY'])
      expect(p.stderr).not.toContain('pr0xypass')
      expect(existsSync(dataDir)).toBe(false)
    } finally {
      rmSync(parent, { recursive: true, force: true })
    }
  }, 30_000)
})
