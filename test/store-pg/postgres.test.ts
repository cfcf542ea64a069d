import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { startPostgres } from '../fixtures/postgres.ts'

/*
 * The throw-away Postgres the store and cluster tests stand on (issue #16): its own user, loopback
 * only, gone without a trace after stop().
 */

const reaches = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, host, () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

const uidOf = (pid: number): number | undefined => {
  try {
    return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
  } catch {
    return undefined // exited
  }
}

describe('the throw-away Postgres', () => {
  it(
    'runs as the postgres user when we are root, answers on 127.0.0.1 only, and stop() leaves no process and no ' +
      'directory',
    async () => {
      const pg = await startPostgres({ own: true })
      try {
        if (process.getuid?.() === 0) {
          expect(uidOf(pg.pid)).toBe(Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()))
        }
        expect(await reaches('127.0.0.1', pg.port)).toBe(true)
        // Another loopback address of this machine: a server bound to every interface would answer here.
        expect(await reaches('127.0.0.2', pg.port)).toBe(false)
        const psql = spawnSync('psql', [pg.url, '-tAc', 'SELECT current_user'], { encoding: 'utf8' })
        expect(psql.stdout.trim()).toBe('postgres')
        const withoutPassword = spawnSync('psql', [pg.url.replace(/:[^:@/]+@/, '@'), '-tAc', 'SELECT 1'], {
          encoding: 'utf8',
          env: { ...process.env, PGPASSWORD: '' },
        })
        expect(withoutPassword.status).not.toBe(0)
      } finally {
        await pg.stop()
      }
      expect(await eventually(() => uidOf(pg.pid) === undefined)).toBe(true)
      expect(existsSync(pg.dir)).toBe(false)
      await pg.stop() // idempotent
    },
  )

  it(
    "under the system tier, every file gets a fresh database on the run's one server, and stop() drops only that " +
      'database (issue #28)',
    async () => {
      // The system tier's globalSetup (test/setup/postgres.ts) started the server; a run without it
      // would start two servers here and fail the port check.
      expect(process.env.ERRANDS_TEST_POSTGRES).toBeDefined()
      const [a, b] = await Promise.all([startPostgres(), startPostgres()])
      try {
        expect(a.port).toBe(b.port)
        expect(new URL(a.url).pathname).not.toBe(new URL(b.url).pathname)
        const create = spawnSync('psql', [a.url, '-tAc', 'CREATE TABLE mine (x int); SELECT 1'], { encoding: 'utf8' })
        expect(create.status).toBe(0)
        const other = spawnSync('psql', [b.url, '-tAc', "SELECT count(*) FROM pg_tables WHERE tablename = 'mine'"], {
          encoding: 'utf8',
        })
        expect(other.stdout.trim()).toBe('0')
        await a.stop()
        expect(spawnSync('psql', [a.url, '-tAc', 'SELECT 1'], { encoding: 'utf8' }).status).not.toBe(0)
        expect(spawnSync('psql', [b.url, '-tAc', 'SELECT 1'], { encoding: 'utf8' }).stdout.trim()).toBe('1')
      } finally {
        await Promise.all([a.stop(), b.stop()])
      }
    },
  )
})
