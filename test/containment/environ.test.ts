/**
 * docs/secrets.md: the errands' Chromium starts with an environment that holds no secret of the
 * host. The host's environment holds `ERRANDS_UPSTREAM_PROXY` and `ERRANDS_DATABASE_URL` with
 * their passwords (and whatever else its operator exported); before, every process of the
 * browser inherited it, renderers included, which run without a sandbox. Through the host on its
 * real port: with secrets in the host's environment and an errand's page loaded, no Chromium
 * process of the host holds one in `/proc/<pid>/environ`, while they hold what Chromium needs.
 * Renderers are forked from the zygote, which the browser started with its own environment, and
 * write their title over their environment's area, so what `/proc` shows of the browser and of
 * the helpers it started is what its renderers hold.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { descendantsOf } from '@errands/edge'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enginePortListener, hostileSite, type HostileSite, startHostileHost } from './harness.ts'

const SECRETS: Record<string, string> = {
  ERRANDS_UPSTREAM_PROXY: 'http://ops:env-proxy-secret-51f0@127.0.0.1:9',
  ERRANDS_DATABASE_URL: 'postgres://errands:env-db-secret-a7c3@127.0.0.1:9/errands',
  OPENAI_API_KEY: 'sk-env-api-secret-0b6e',
}
const saved: Record<string, string | undefined> = {}
let engine: Awaited<ReturnType<typeof enginePortListener>>
let site: HostileSite
let host: Awaited<ReturnType<typeof startHostileHost>>

beforeAll(async () => {
  for (const [name, value] of Object.entries(SECRETS)) {
    saved[name] = process.env[name]
    process.env[name] = value
  }
  engine = await enginePortListener()
  site = await hostileSite()
  host = await startHostileHost({ enginePort: engine.port, egress: true })
})
afterAll(async () => {
  await host?.stop()
  await Promise.all([site?.close(), engine?.close()])
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

/** The environment and command line of each of `pids` that can be read (`/proc`). */
const read = (pids: ReadonlyArray<number>) =>
  pids.flatMap((pid) => {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ')
      return [{ pid, environ, cmdline }]
    } catch {
      return []
    }
  })
const everyPid = () =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)

describe("the errands' browser environment (docs/secrets.md)", () => {
  it("holds none of the host's secrets, in the browser and in what it starts", async () => {
    const page = `http://127.0.0.1:${site.port}/redirect?to=/worker.js`
    expect((await host.call('env-1', 'POST', '/v1/navigate', { url: page })).status).toBe(200)
    // The browsers this process started (other engineers' hosts on the machine are none of
    // this test's), and by their owner mark the helpers they started, which leave our tree.
    const descendants = read(await descendantsOf(process.pid))
    const browsers = descendants.filter(
      (p) => !p.cmdline.includes('--type=') && p.environ.some((v) => v.startsWith('ERRANDS_OWNER=')),
    )
    expect(browsers.length, 'a browser of ours').toBeGreaterThan(0)
    const marks = new Set(browsers.flatMap((p) => p.environ.filter((v) => v.startsWith('ERRANDS_OWNER='))))
    const ours = read(everyPid()).filter((p) => p.environ.some((v) => marks.has(v)))
    expect(ours.filter((p) => p.cmdline.includes('crashpad')).length, 'a helper it started').toBeGreaterThan(0)
    for (const p of ours) {
      const names = p.environ.map((v) => v.split('=')[0])
      expect(names).toContain('PATH')
      expect(names).toContain('TMPDIR')
      for (const name of Object.keys(SECRETS)) expect(names, `${p.pid} ${p.cmdline.slice(0, 60)}`).not.toContain(name)
    }
    // Every Chromium process of ours (the test's own tools, esbuild, got the secrets as children of ours).
    const holders = [...descendants, ...ours]
      .filter((p) => /chrom/.test(p.cmdline.split(' ')[0] ?? ''))
      .filter((p) => Object.values(SECRETS).some((s) => p.environ.join('\n').includes(s)))
    expect(holders.map((p) => `${p.pid} ${p.cmdline.slice(0, 80)}`)).toEqual([])
  })
})
