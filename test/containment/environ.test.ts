/**
 * docs/secrets.md: the errands' Chromium starts with an environment that holds no secret of the
 * host. The host's environment holds `ERRANDS_UPSTREAM_PROXY` and `ERRANDS_DATABASE_URL` with
 * their passwords (and whatever else its operator exported); before, every process of the
 * browser inherited it, renderers included, which run without a sandbox. Through the host on its
 * real port: with secrets in the host's environment, an errand's page loaded, no process on the
 * machine holds a secret in `/proc/<pid>/environ`, while the browser and its renderer (found by
 * our owner mark) hold what Chromium needs. Renderers are forked from the zygote, which the browser
 * started with its own environment, and write their title over their environment's area, so what
 * `/proc` shows of the browser and of the helpers it started is what its renderers hold.
 */
import { readdirSync, readFileSync } from 'node:fs'
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

/** Every process's environment and command line that can be read (`/proc`). */
const processes = () =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .flatMap((pid) => {
      try {
        const environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ')
        return [{ pid: Number(pid), environ, cmdline }]
      } catch {
        return []
      }
    })

describe("the errands' browser environment (docs/secrets.md)", () => {
  it("holds none of the host's secrets, in the browser and in what it starts", async () => {
    const page = `http://127.0.0.1:${site.port}/redirect?to=/worker.js`
    expect((await host.call('env-1', 'POST', '/v1/navigate', { url: page })).status).toBe(200)
    const ours = processes().filter((p) => p.environ.some((v) => v.startsWith('ERRANDS_OWNER=')))
    const browsers = ours.filter((p) => !p.cmdline.includes('--type='))
    const helpers = ours.filter((p) => p.cmdline.includes('crashpad'))
    expect(browsers.length, 'a browser of ours').toBeGreaterThan(0)
    expect(helpers.length, 'a helper it started').toBeGreaterThan(0)
    for (const p of ours) {
      const names = p.environ.map((v) => v.split('=')[0])
      expect(names).toContain('PATH')
      expect(names).toContain('TMPDIR')
      for (const name of Object.keys(SECRETS)) expect(names, `${p.pid} ${p.cmdline.slice(0, 60)}`).not.toContain(name)
    }
    // Every Chromium process on the machine (the test's own tools, esbuild, got the secrets as children of ours).
    const holders = processes()
      .filter((p) => /chrom/.test(p.cmdline.split(' ')[0] ?? ''))
      .filter((p) => Object.values(SECRETS).some((s) => p.environ.join('\n').includes(s)))
    expect(holders.map((p) => `${p.pid} ${p.cmdline.slice(0, 80)}`)).toEqual([])
  })
})
