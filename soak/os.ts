/**
 * What the soak counts in the operating system, never in the engine's bookkeeping: the host's
 * Chromium processes (found by the `ERRANDS_OWNER` mark they inherit, so orphans of a killed host
 * count too), the host's open file descriptors, the temp dirs under the run's private `TMPDIR`,
 * and the errands' browser's contexts, asked over its DevTools port.
 *
 * @example
 * const probe = osProbe({ owner: dataDir, tmpDir })
 * probe.chromium().total // processes
 * await probe.contexts() // browser contexts of the errands' browser
 */
import { pidsWithEnv } from '@errands/runtime-chromium'
import { chromiumProcesses } from '../test/fixtures/processes.ts'
import CDP from 'chrome-remote-interface'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The host's Chromium processes, by role. */
export interface ChromiumCount {
  readonly total: number
  readonly renderers: ReadonlyArray<number>
  /** The errands' browser (the non-persistent one), if it runs. */
  readonly errandsBrowser: number | undefined
  readonly mainBrowser: number | undefined
  readonly errandRenderers: ReadonlyArray<number>
  /**
   * How many of each kind (`renderer`, `utility:network.mojom.NetworkService`, `zygote`, `browser` …), to say what a
   * leak is.
   */
  readonly kinds: Readonly<Record<string, number>>
}

const cmdline = (pid: number) => {
  try {
    // Chromium's children rewrite their title: one string with spaces, not NUL-separated arguments.
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split(/[\0 ]/)
  } catch {
    return []
  }
}

/**
 * Probes for one run: `owner` is the host's data dir (Chromium's `ERRANDS_OWNER`), `tmpDir` the
 * host's `TMPDIR`.
 *
 * @example
 * osProbe({ owner: '/tmp/soak/data', tmpDir: '/tmp/soak/tmp' }).tempDirs()
 */
export const osProbe = (o: { readonly owner: string; readonly tmpDir: string }) => {
  const owner = resolve(o.owner)
  const profile = `--user-data-dir=${join(owner, 'profile')}`
  const chromium = (): ChromiumCount => {
    // Browsers (and crashpad) carry the mark; the zygotes and renderers they fork get a cleaned
    // environment, so they are found as descendants.
    const marked = pidsWithEnv(`ERRANDS_OWNER=${owner}`)
    const tree = chromiumProcesses({ descendantsOf: marked })
    const pids = [...new Set([...marked, ...tree.map((p) => p.pid)])]
    const renderers: number[] = []
    let errandsBrowser: number | undefined
    let mainBrowser: number | undefined
    const errandRenderers: number[] = []
    const byPid = new Map(tree.map((p) => [p.pid, p]))
    const browserOf = (pid: number): number | undefined => {
      let p = byPid.get(pid)
      while (p !== undefined && !marked.includes(p.pid)) p = byPid.get(p.ppid)
      return p?.pid
    }
    for (const pid of marked) {
      const args = cmdline(pid)
      if (!/\/chromium$|\/chrome$/.test(args[0] ?? '') || args.some((a) => a.startsWith('--type='))) continue
      if (args.includes(profile)) mainBrowser = pid
      else errandsBrowser = pid
    }
    const kinds: Record<string, number> = {}
    for (const pid of pids) {
      const args = cmdline(pid)
      const type = args.find((a) => a.startsWith('--type='))?.slice('--type='.length)
      const sub = args.find((a) => a.startsWith('--utility-sub-type='))?.slice('--utility-sub-type='.length)
      const kind =
        type === undefined
          ? /crashpad/.test(args[0] ?? '')
            ? 'crashpad'
            : 'browser'
          : sub === undefined
            ? type
            : `${type}:${sub}`
      kinds[kind] = (kinds[kind] ?? 0) + 1
    }
    for (const pid of pids) {
      if (cmdline(pid).includes('--type=renderer')) {
        renderers.push(pid)
        if (errandsBrowser !== undefined && browserOf(pid) === errandsBrowser) errandRenderers.push(pid)
      }
    }
    return { total: pids.length, renderers, errandsBrowser, mainBrowser, errandRenderers, kinds }
  }
  /** Renderers of the errands' browser only (killing them crashes errands' tabs, never the person's). */
  const errandRenderers = (): ReadonlyArray<number> => chromium().errandRenderers
  const fds = (pid: number): number => {
    try {
      return readdirSync(`/proc/${pid}/fd`).length
    } catch {
      return -1
    }
  }
  /**
   * Entries under the private TMPDIR (Chromium's `errands-chromium-*`, `org.chromium.*` inside them, Playwright's
   * profiles).
   */
  const tempDirs = (): number => {
    let n = 0
    for (const name of safeList(o.tmpDir)) {
      if (name.startsWith('tsx-')) continue // tsx's compile cache of the host child itself
      n++
      if (name.startsWith('errands-chromium-')) n += safeList(join(o.tmpDir, name)).length
    }
    return n
  }
  /**
   * Browser contexts of the errands' browser and the page URLs in each, read over its DevTools port (undefined: not
   * running).
   */
  const contextDetail = async (): Promise<Record<string, string[]> | undefined> => {
    const pid = chromium().errandsBrowser
    if (pid === undefined) return undefined
    // The soak's host child opens a debugging port of Chromium's choosing (soak/host-child.mjs; the
    // engine itself has none): Chromium writes it into its profile's DevToolsActivePort.
    const profileDir = cmdline(pid)
      .filter((a) => a.startsWith('--user-data-dir='))
      .map((a) => a.slice('--user-data-dir='.length))
      .pop()
    if (profileDir === undefined) return undefined
    let port: number
    try {
      port = Number(readFileSync(join(profileDir, 'DevToolsActivePort'), 'utf8').split('\n')[0])
    } catch {
      return undefined
    }
    if (!(port > 0)) return undefined
    let client: CDP.Client | undefined
    try {
      const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as {
        webSocketDebuggerUrl: string
      }
      client = await CDP({ target: version.webSocketDebuggerUrl, local: true })
      const { browserContextIds } = (await client.send('Target.getBrowserContexts' as never)) as unknown as {
        browserContextIds: string[]
      }
      const { targetInfos } = (await client.send('Target.getTargets' as never)) as unknown as {
        targetInfos: Array<{ browserContextId?: string; url: string; type: string }>
      }
      const out: Record<string, string[]> = Object.fromEntries(browserContextIds.map((id) => [id, [] as string[]]))
      // Targets of no listed context (a worker, a leftover) under "other", so a leak shows where it is.
      for (const t of targetInfos) {
        const key = t.browserContextId !== undefined && out[t.browserContextId] ? t.browserContextId : 'other'
        ;(out[key] ??= []).push(`${t.type} ${t.url.replace(/\?.*$/, '')}`)
      }
      return out
    } catch {
      return undefined
    } finally {
      await client?.close().catch(() => undefined)
    }
  }
  const contexts = async (): Promise<number | undefined> => {
    const detail = await contextDetail()
    return detail === undefined ? undefined : Object.keys(detail).filter((k) => k !== 'other').length
  }
  return { chromium, errandRenderers, fds, tempDirs, contexts, contextDetail }
}

const safeList = (dir: string): string[] => {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/** A probe. */
export type OsProbe = ReturnType<typeof osProbe>
