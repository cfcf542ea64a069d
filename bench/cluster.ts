/**
 * Several hosts as one, measured side by side in one run (issue #16; docs/cluster.md's paper
 * model starts from these figures): the 40-task run through one plain host, through a one-host
 * cluster (what joining costs) and through three hosts on one Postgres (calls spread over the
 * hosts, so two thirds are forwarded); the cost of one call answered by the key's owner against
 * one forwarded through another host; and the time from a runner's SIGKILL until its open
 * errands are open again on the others.
 *
 * Each task: open an errand (first navigate), read its text, set a cookie and storage, finish it
 * (`done` forgets it) — TASKS tasks, PARALLEL at a time.
 *
 * @example
 * // node --import tsx bench/cluster.ts [--tasks 40] [--parallel 6]
 */
import { randomUUID } from 'node:crypto'
import { client, spawnHost } from '../test/host/harness.ts'
import { freePort } from '../test/fixtures/ports.ts'
import { eventually } from '../test/fixtures/processes.ts'
import { serveFixture } from '../test/host/fixtures.ts'
import { startCluster, type ClusterHost } from '../test/cluster/harness.ts'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { median, printTable, type Row } from './table.ts'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const TASKS = arg('tasks', 40)
const PARALLEL = arg('parallel', 6)
const CALLS = arg('calls', 100)
const LOCK_EXPIRY_MS = 4_000
const ENV = {
  ERRANDS_MAX_SESSIONS: String(PARALLEL),
  ERRANDS_SNAPSHOT_DEBOUNCE_MS: '300',
  CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium',
}

type Call = ReturnType<typeof client>

/**
 * Runs the tasks through `calls` (task k through calls[k % n]); returns the wall time and each first navigate's
 * latency.
 */
const fortyTasks = async (calls: ReadonlyArray<Call>, url: (path: string) => string) => {
  const opens: Array<number> = []
  let failures = 0
  let next = 0
  const run = `r${randomUUID().slice(0, 6)}`
  const started = performance.now()
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let k = next++; k < TASKS; k = next++) {
        const call = calls[k % calls.length]!
        const key = `${run}-${k}`
        const t = performance.now()
        const steps = [
          await call(key, 'POST', '/v1/navigate', { url: url(`/page?t=task-${k}`) }),
          (opens.push(performance.now() - t), await call(key, 'GET', '/v1/text')),
          await call(key, 'POST', '/v1/navigate', { url: url(`/store?v=${k}`) }),
          await call(key, 'POST', '/v1/session/task', { status: 'done' }),
        ]
        if (steps.some((s) => s.status !== 200)) failures++
      }
    }),
  )
  return { wall: performance.now() - started, opens, failures }
}

/** `CALLS` calls of GET /v1/url on one open errand through `call`. */
const perCall = async (call: Call, key: string) => {
  const xs: Array<number> = []
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now()
    await call(key, 'GET', '/v1/url')
    xs.push(performance.now() - t)
  }
  return xs
}

const main = async () => {
  const loadAtStart = loadavg()[0]!.toFixed(1)
  const site = await serveFixture('127.0.0.1')
  const rows: Array<Row> = []
  const section = `${TASKS} tasks (open, read text, set cookie + storage, done), ${PARALLEL} at a time`
  const callSection = `one call (GET /v1/url) on an open errand, ${CALLS} calls`

  // One plain host: no database, today's embedded store.
  const dir = mkdtempSync(join(tmpdir(), 'errands-bench-plain-'))
  const plain = spawnHost({
    ...ENV,
    ERRANDS_DATA_DIR: dir,
    ERRANDS_PORT: String(await freePort()),
    ERRANDS_INSPECT_PORT: String(await freePort()),
  })
  const plainCall = client(await plain.ready, readFileSync(join(dir, 'host-token'), 'utf8').trim())
  await fortyTasks([plainCall], site.url) // warm-up: Chromium started, caches filled
  const p = await fortyTasks([plainCall], site.url)
  await plainCall('bench-call', 'POST', '/v1/navigate', { url: site.url('/page?t=call') })
  const plainCalls = await perCall(plainCall, 'bench-call')
  plain.child.kill('SIGTERM')
  await plain.exited
  rmSync(dir, { recursive: true, force: true })

  // A one-host cluster, then three hosts on one Postgres.
  const one = await startCluster(1, { lockExpiryMs: LOCK_EXPIRY_MS, env: ENV })
  await fortyTasks([one.hosts[0]!.call], site.url)
  const c1 = await fortyTasks([one.hosts[0]!.call], site.url)
  await one.hosts[0]!.call('bench-call', 'POST', '/v1/navigate', { url: site.url('/page?t=call') })
  const oneCalls = await perCall(one.hosts[0]!.call, 'bench-call')
  await one.stop()

  const three = await startCluster(3, { lockExpiryMs: LOCK_EXPIRY_MS, env: ENV })
  const calls = three.hosts.map((h) => h.call)
  await fortyTasks(calls, site.url)
  const c3 = await fortyTasks(calls, site.url)
  // A call answered by the owner against one forwarded by another host.
  await calls[0]!('bench-call', 'POST', '/v1/navigate', { url: site.url('/page?t=call') })
  let ownerHost: ClusterHost | undefined
  for (const h of three.hosts) if ((await h.openKeys()).includes('bench-call')) ownerHost = h
  const other = three.hosts.find((h) => h !== ownerHost)!
  const ownCalls = await perCall(ownerHost!.call, 'bench-call')
  const forwardedCalls = await perCall(other.call, 'bench-call')
  // A SIGKILLed runner's open errands, open again on the others.
  for (let i = 0; i < 9; i++)
    await calls[i % 3]!(`heal-${i}`, 'POST', '/v1/navigate', { url: site.url(`/store?v=heal-${i}`) })
  const held = await Promise.all(three.hosts.map((h) => h.openKeys()))
  const victimAt = held.reduce((best, keys, i) => (keys.length > held[best]!.length ? i : best), 0)
  const victim = three.hosts[victimAt]!
  const victimKeys = held[victimAt]!.filter((k) => k.startsWith('heal-'))
  // Wait for their snapshots to be sealed (debounce 300 ms after the last load).
  for (const key of victimKeys) await eventually(async () => (await three.sealed(key)) !== undefined, 10_000, 100)
  const killedAt = performance.now()
  victim.child.kill('SIGKILL')
  await victim.exited
  await eventually(
    async () => {
      const open = (await Promise.all(three.live().map((h) => h.openKeys()))).flat()
      return victimKeys.every((k) => open.includes(k))
    },
    120_000,
    50,
  )
  const healMs = performance.now() - killedAt
  await three.stop()
  await site.close()

  const per = (wall: number) => wall / TASKS
  rows.push(
    { section, name: 'one host (no database: the embedded file store)', median: p.wall, ratio: 1 },
    { section, name: 'one host in a cluster (Postgres store, entity calls)', median: c1.wall, ratio: c1.wall / p.wall },
    { section, name: 'three hosts on one Postgres, calls spread over them', median: c3.wall, ratio: c3.wall / p.wall },
    { section, name: '  per task, one plain host', median: per(p.wall), ratio: NaN },
    { section, name: '  per task, three hosts', median: per(c3.wall), ratio: NaN },
    { section, name: '  open (first navigate), one plain host, median', median: median(p.opens), ratio: NaN },
    { section, name: '  open (first navigate), three hosts, median', median: median(c3.opens), ratio: NaN },
    {
      section,
      name: `  failed tasks: plain ${p.failures}, one-host cluster ${c1.failures}, three hosts ${c3.failures}`,
      median: p.failures + c1.failures + c3.failures,
      ratio: NaN,
      unit: 'tasks',
    },
    { section: callSection, name: 'one plain host', median: median(plainCalls), ratio: 1 },
    {
      section: callSection,
      name: 'one host in a cluster (the entity call is local)',
      median: median(oneCalls),
      ratio: median(oneCalls) / median(plainCalls),
    },
    {
      section: callSection,
      name: 'three hosts, asked of the owner',
      median: median(ownCalls),
      ratio: median(ownCalls) / median(plainCalls),
    },
    {
      section: callSection,
      name: 'three hosts, asked of another host (forwarded)',
      median: median(forwardedCalls),
      ratio: median(forwardedCalls) / median(plainCalls),
    },
    {
      section: `a SIGKILLed runner with ${victimKeys.length} open errands (lock expiry ${LOCK_EXPIRY_MS} ms)`,
      name: 'until all are open again on the others (one sample)',
      median: healMs,
      ratio: NaN,
    },
  )
  // The machine is shared: the load says how far to trust the absolute figures.
  printTable(rows, {
    tasks: TASKS,
    parallel: PARALLEL,
    'max sessions per host': PARALLEL,
    'load average at the start': loadAtStart,
    'at the end': loadavg()[0]!.toFixed(1),
  })
}

await main()
process.exit(0)
