import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Runtime } from '@errands/runtime'
import { ChromiumRuntime } from '@errands/runtime-chromium'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumProcesses, eventually } from '../fixtures/processes.ts'
import { closeSites, serveSites, type Site } from '../fixtures/sites.ts'
import { spec, startRuntime } from './harness.ts'

let sites: Array<Site>
beforeAll(async () => {
  sites = await serveSites(1)
})
afterAll(() => closeSites(sites ?? []))

const ourTmpDirs = (pid: number): Array<string> => {
  const tmp = readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find((v) => v.startsWith('TMPDIR='))
  return tmp ? [tmp.slice('TMPDIR='.length)] : []
}

describe('shutdown', () => {
  it('closes every context and both browsers, leaves no process or temp folder, and is idempotent', async () => {
    const h = await startRuntime()
    const id = await h.run(
      h.runtime.openContext(spec('s', { tabs: [{ url: sites[0]!.url('/title?t=s'), active: true }] })),
    )
    await h.run(h.runtime.openContext(spec('t')))
    const errandsPid = h.runtime.errandsBrowserPid()!
    const mainProcs = chromiumProcesses({ cmdlineContains: h.dataDir })
    expect(mainProcs.length).toBeGreaterThan(0)
    const browserRoots = mainProcs.filter((p) => p.cmdline.includes('--user-data-dir='))
    const mainTmp = browserRoots.flatMap((p) => ourTmpDirs(p.pid))
    const errandsTmp = ourTmpDirs(errandsPid)
    expect([...mainTmp, ...errandsTmp].every((d) => existsSync(d))).toBe(true)
    // Chromium's own temp folders (the ones a SIGKILL leaves behind) live in our private TMPDIRs.
    for (const dir of [...mainTmp, ...errandsTmp]) {
      expect(
        readdirSync(dir).some((n) => n.startsWith('org.chromium.Chromium.')),
        dir,
      ).toBe(true)
    }

    await Promise.all([h.run(h.runtime.shutdown), h.run(h.runtime.shutdown)])
    await h.run(h.runtime.shutdown)
    expect(await eventually(() => chromiumProcesses({ cmdlineContains: h.dataDir }).length === 0, 15_000)).toBe(true)
    expect(await eventually(() => chromiumProcesses({ descendantsOf: [errandsPid] }).length === 0, 15_000)).toBe(true)
    expect([...mainTmp, ...errandsTmp].filter((d) => existsSync(d))).toEqual([])
    expect(await h.run(h.runtime.isOpen(id))).toBe(false)
    expect(await h.run(h.runtime.isOpen('main'))).toBe(false)
    expect(await Effect.runPromise(Effect.flip(h.runtime.openContext(spec('late'))))).toMatchObject({
      reason: 'unavailable',
    })
    await h.stop()
  })

  it('shuts down when the layer scope closes, even when no errand ever ran', async () => {
    const dataDir = join(tmpdir(), `errands-layer-${process.pid}-${Date.now()}`)
    const kind = await Effect.runPromise(
      Effect.gen(function* () {
        const runtime = yield* Runtime
        const [tab] = yield* runtime.tabs(runtime.mainContext)
        yield* runtime.navigate(runtime.mainContext, tab!.id, sites[0]!.url('/title?t=layer'))
        return runtime.kind
      }).pipe(Effect.provide(ChromiumRuntime.layer({ dataDir }))),
    )
    expect(kind).toBe('chromium')
    expect(await eventually(() => chromiumProcesses({ cmdlineContains: dataDir }).length === 0, 15_000)).toBe(true)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('fails to start with a clear error when Chromium is missing', async () => {
    const failure = await Effect.runPromise(
      Effect.flip(
        ChromiumRuntime.make({ dataDir: join(tmpdir(), 'errands-missing'), executablePath: '/nonexistent/chromium' }),
      ),
    )
    expect(failure).toMatchObject({ _tag: 'RuntimeError', reason: 'unavailable' })
  })
})
