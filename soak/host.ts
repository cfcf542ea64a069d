/**
 * The real host as a child process the soak can SIGKILL and restart on the same data dir, with a
 * timed HTTP client. Its `TMPDIR` is a folder of the run's own, so the temp dirs its Chromiums
 * leave are counted apart from any other program's on the machine.
 *
 * @example
 * const host = await startHost({ dataDir, tmpDir, env: { ERRANDS_MAX_SESSIONS: '6' } })
 * const reply = await host.call('k1', 'POST', '/v1/navigate', { url })
 * await host.kill()
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import * as http from 'node:http'
import { join, resolve } from 'node:path'
import { SOAK_RESOLVER_RULES } from './sites.ts'

const repo = resolve(import.meta.dirname, '..')

/** A reply, read; `status` 0 when the connection failed (the host died under the call). */
export interface Reply {
  readonly status: number
  readonly body: any
  readonly ms: number
}

/** How to start a host child. */
export interface HostSpec {
  readonly dataDir: string
  readonly tmpDir: string
  readonly env?: Record<string, string> | undefined
  /** Receives every stderr line of the host (its log). */
  readonly log?: ((line: string) => void) | undefined
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })

/**
 * Closes the client's idle keep-alive sockets, so the host's descriptor count in a quiet period
 * is the host's own (new calls open new sockets).
 *
 * @example
 * dropIdleSockets()
 */
export const dropIdleSockets = (): void => {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy()
}

const request = (
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<Reply> =>
  new Promise((done) => {
    const start = performance.now()
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let parsed: unknown
        try {
          parsed = JSON.parse(text)
        } catch {
          // not JSON (a screenshot …)
        }
        done({ status: res.statusCode ?? 0, body: parsed, ms: performance.now() - start })
      })
      res.on('error', () => done({ status: 0, body: undefined, ms: performance.now() - start }))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', () => done({ status: 0, body: undefined, ms: performance.now() - start }))
    req.end(body)
  })

/**
 * A short private TMPDIR for a host child. Short on purpose: Chromium puts its singleton socket
 * at `$TMPDIR/errands-chromium-XXXXXX/org.chromium.Chromium.XXXXXX/SingletonSocket`, and a Unix
 * socket path over 107 bytes makes the launch fail as "Target page, context or browser has been
 * closed" (the soak's CI run hit it with a TMPDIR under its own out dir).
 *
 * @example
 * const tmpDir = shortTmpDir() // /tmp/soak-Ab12Cd
 */
export const shortTmpDir = (): string => mkdtempSync('/tmp/soak-')

/** A free port on 127.0.0.1 (bound, then released): the host refuses port 0. */
const freePort = (): Promise<number> =>
  new Promise((done) => {
    const server = http.createServer()
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => done(port))
    })
  })

/**
 * Starts the host program (soak/host-child.mjs: the compiled host) and waits for its "listening"
 * line; resolves with its handle, or rejects with its stderr when it exits first.
 *
 * @example
 * const host = await startHost({ dataDir: '/tmp/soak/data', tmpDir: '/tmp/soak/tmp' })
 */
export const startHost = async (spec: HostSpec) => {
  const started = performance.now()
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', join(repo, 'soak/host-child.mjs')], {
    cwd: repo,
    env: {
      ...process.env,
      ERRANDS_PORT: String(await freePort()),
      ERRANDS_DATA_DIR: spec.dataDir,
      ERRANDS_SNAPSHOT_DEBOUNCE_MS: '500',
      ...spec.env,
      ERRANDS_SOAK_RESOLVER_RULES: SOAK_RESOLVER_RULES,
      TMPDIR: spec.tmpDir,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d: Buffer) => {
    err += d
    if (err.length > 200_000) err = err.slice(-100_000)
    if (spec.log) for (const line of d.toString('utf8').split('\n')) if (line !== '') spec.log(line)
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => {
      // A killed host's Chromium may still hold its pipes; let go of them ourselves.
      child.stdout!.destroy()
      child.stderr!.destroy()
      r({ code, signal })
    }),
  )
  const port = await new Promise<number>((resolvePort, reject) => {
    const check = () => {
      const m = /errands host listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) resolvePort(Number(m[1]))
    }
    child.stdout!.on('data', check)
    void exited.then(({ code, signal }) =>
      reject(new Error(`host exited (${code ?? signal}) before it was ready:\n${err.slice(-4000)}`)),
    )
  })
  const startMs = performance.now() - started
  const token = readFileSync(join(spec.dataDir, 'host-token'), 'utf8').trim()
  let dead = false
  void exited.then(() => (dead = true))

  /** One call; `key` goes in `X-Browser-Session`, person paths get the token. */
  const call = (
    key: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    timeoutMs = 60_000,
  ): Promise<Reply> =>
    request(
      port,
      method,
      path,
      {
        host: `127.0.0.1:${port}`,
        ...(key !== undefined ? { 'x-browser-session': key } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(path.startsWith('/v1/person/') ? { authorization: `Bearer ${token}` } : {}),
      },
      body === undefined ? undefined : JSON.stringify(body),
      timeoutMs,
    )

  return {
    pid: child.pid!,
    port,
    startMs,
    call,
    isDead: () => dead,
    stderr: () => err,
    /** The host's heap after a full GC, asked over IPC (undefined when it does not answer in 5 s). */
    heap: () =>
      new Promise<{ heapUsed: number; rss: number; external: number } | undefined>((resolveHeap) => {
        if (dead || !child.connected) return resolveHeap(undefined)
        const timer = setTimeout(() => {
          child.off('message', on)
          resolveHeap(undefined)
        }, 5_000)
        const on = (m: unknown) => {
          const heap = (m as { heap?: { heapUsed: number; rss: number; external: number } }).heap
          if (heap === undefined) return
          clearTimeout(timer)
          child.off('message', on)
          resolveHeap(heap)
        }
        child.on('message', on)
        child.send('heap')
      }),
    /** SIGKILL, by this child's pid only. */
    kill: async () => {
      if (!dead) child.kill('SIGKILL')
      return exited
    },
    /** SIGTERM: the host parks every open session and closes its browsers. */
    stop: async () => {
      if (!dead) child.kill('SIGTERM')
      return exited
    },
    exited,
  }
}

/** A running host child. */
export type SoakHost = Awaited<ReturnType<typeof startHost>>
