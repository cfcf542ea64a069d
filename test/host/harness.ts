/**
 * Starting the host for real-Chromium tests: in-process on a random port (`startTestHost`), or
 * as a child process the way `npm start` runs it (`spawnHost`), plus a small HTTP client.
 *
 * @example
 * const host = await startTestHost({ ERRANDS_MAX_SESSIONS: '2' })
 * const res = await host.call('k1', 'POST', '/v1/navigate', { url: site.url('/page?t=a') })
 * const tabs = await host.v1('k1').tabs() // typed, decoded with its declared Schema
 * await host.stop()
 */
import { Chromium } from '@errands/engine'
import {
  call,
  endpointAt,
  hostSettingsFrom,
  startHost,
  v1Client,
  type HostSettings,
  type RunningHost,
  type StartOptions,
} from '@errands/host'
import { Runtime } from '@errands/runtime'
import { type JournalEntry, Supervisor } from '@errands/supervisor'
import { Context, Effect, Exit, Redacted, Scope } from 'effect'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import * as http from 'node:http'
import * as net from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** A response, read. */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly bytes: Buffer
}

const read = async (res: Response): Promise<Reply> => {
  const bytes = Buffer.from(await res.arrayBuffer())
  const type = res.headers.get('content-type') ?? ''
  return {
    status: res.status,
    headers: res.headers,
    bytes,
    body: type.includes('json') ? JSON.parse(bytes.toString('utf8')) : undefined,
  }
}

/**
 * A client for a host at `base`: a call to a declared endpoint goes through the typed client
 * (`call`, issue #24), so every 200 a test reads is first decoded strictly with the answer Schema
 * its route declares — a host answer that drifted from `/v1/openapi.json` fails the test that got
 * it. Anything else (an undeclared path or method, a query a route does not take) is sent as it is
 * with `fetch`, for the tests that send wrong requests on purpose. Either way the key goes as
 * given, and the token to every `/v1/person/` path.
 *
 * @example
 * const call = client('http://127.0.0.1:7777', token)
 * await call('k1', 'GET', '/v1/url')
 */
export const client =
  (base: string, token?: string) =>
  async (
    key: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const url = new URL(path, base)
    const found = endpointAt(method, url.pathname)
    const sent = {
      ...(key !== undefined ? { 'x-browser-session': key } : {}),
      ...(url.pathname.startsWith('/v1/person/') && token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    }
    if (found !== undefined && (url.search === '' || found.endpoint.query !== undefined)) {
      const reply = await call(
        base,
        found.endpoint,
        { body, params: found.params, query: Object.fromEntries(url.searchParams) },
        { headers: sent },
      )
      const json = reply.bytes.length > 0 && (reply.headers.get('content-type') ?? '').includes('json')
      return {
        status: reply.status,
        headers: reply.headers,
        bytes: Buffer.from(reply.bytes),
        body: json ? reply.body : undefined,
      }
    }
    return read(
      await fetch(`${base}${path}`, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...sent },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    )
  }

/**
 * A raw request with any headers (Host, control characters …) — what `fetch` will not send.
 *
 * @example
 * await raw(port, 'GET /health HTTP/1.1\r\nHost: evil.example\r\n\r\n')
 */
export const raw = (
  port: number,
  request: string | Buffer,
): Promise<{ readonly status: number; readonly text: string }> =>
  new Promise((resolvePromise, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(request))
    let out = ''
    socket.on('data', (d) => (out += d.toString('latin1')))
    socket.on('error', reject)
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0)
      resolvePromise({ status, text: out.slice(out.indexOf('\r\n\r\n') + 4) })
    })
  })

/**
 * A request through `node:http` with headers `fetch` would not let us choose.
 *
 * @example
 * await request(port, { path: '/health', headers: { host: 'evil.example:7777' } })
 */
export const request = (
  port: number,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> =>
  new Promise((resolvePromise, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: o.method ?? 'GET', path: o.path, headers: o.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let body: unknown = text
          try {
            body = JSON.parse(text)
          } catch {
            // not JSON
          }
          resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body })
        })
      },
    )
    req.on('error', reject)
    req.end(o.body)
  })

/**
 * Starts the host in-process on a random port with a fresh data dir (or the given one).
 *
 * @example
 * const host = await startTestHost({ ERRANDS_MAX_SESSIONS: '2' })
 */
export const startTestHost = async (
  env: Record<string, string> = {},
  dataDir = mkdtempSync(join(tmpdir(), 'errands-host-')),
  port = 0,
  start: Pick<StartOptions, 'mcpLingerMs' | 'observeRuntime'> = {},
  /** Settings no variable may set (an idle limit of milliseconds, for a test that waits on the sweep). */
  tweak: (settings: HostSettings) => HostSettings = (s) => s,
) => {
  const logs: string[] = []
  // The supervisor's journal, the one record of its inputs (the asks of a person and their ends among them).
  const journal: JournalEntry[] = []
  const settings = tweak(
    Effect.runSync(hostSettingsFrom({ ERRANDS_DATA_DIR: dataDir, ERRANDS_SNAPSHOT_DEBOUNCE_MS: '300', ...env })),
  )
  const scope = Effect.runSync(Scope.make())
  const host: RunningHost = await Effect.runPromise(
    startHost({
      settings,
      port,
      log: (line) => logs.push(line),
      journal: (entry) => journal.push(entry),
      chromium: { warmSpare: false },
      ...start,
    }).pipe(Scope.extend(scope)),
  )
  const token = Redacted.value(host.token)
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  const call = client(host.url, token)
  return {
    ...host,
    dataDir,
    logs,
    journal,
    tokenText: token,
    supervisor: Context.get(host.services, Supervisor),
    chromium: Context.get(host.services, Chromium),
    runtime: Context.get(host.services, Runtime),
    call,
    /** The session `key`'s DevTools URL (`GET /v1/session/devtools`); anything but 200 throws with the answer. */
    devtoolsUrl: async (key: string): Promise<string> => {
      const reply = await call(key, 'GET', '/v1/session/devtools')
      if (reply.status !== 200)
        throw new Error(`GET /v1/session/devtools → ${reply.status} ${JSON.stringify(reply.body)}`)
      return reply.body.url as string
    },
    /** The typed client (issue #24) as the session `key` (and the person, with the host's token). */
    v1: (key?: string) => v1Client(host.url, { key, token }),
    run: <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect),
    /** Closes the host (parks every open session) and keeps the data dir. */
    close,
    /** Closes the host and removes the data dir. */
    stop: async () => {
      await close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A host started in-process. */
export type TestHost = Awaited<ReturnType<typeof startTestHost>>

const repo = resolve(import.meta.dirname, '../..')

/** A host running as a child process. */
export interface HostProcess {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the URL line's URL, or rejects when the process exits first. */
  readonly ready: Promise<string>
  readonly exited: Promise<number | null>
}

/** `packages/<name>/src/<file>.ts` → `packages/<name>/dist/<file>.js`, the file that ships. */
const compiled = (source: string): string => {
  const m = /^packages\/([^/]+)\/src\/(.+)\.ts$/.exec(source)
  if (m === null)
    throw new Error(`spawnHost: ${source} is not a package's source file; name the entry by its src/ path`)
  return `packages/${m[1]}/dist/${m[2]}.js`
}

/**
 * Runs the compiled host (`packages/host/dist/main.js`) the way a service manager does (plain
 * `node`, SIGTERM to that process), or another entry point that prints the same line (the CLI's
 * `host`, which joins a cluster). An entry is named by its source path and run from `dist/`
 * (R4, issue #28: process-level tests run what ships; the tiers' globalSetup builds it).
 *
 * @example
 * const p = spawnHost({ ERRANDS_PORT: '0' })
 * const q = spawnHost(env, ['packages/cli/src/main.ts', 'host'])
 */
export const spawnHost = (
  env: Record<string, string>,
  entry: ReadonlyArray<string> = ['packages/host/src/main.ts'],
): HostProcess => {
  const [script, ...args] = entry
  const child = spawn(process.execPath, [join(repo, compiled(script!)), ...args], {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (err += d))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
  const ready = new Promise<string>((resolvePromise, reject) => {
    const check = () => {
      const m = /errands host listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolvePromise(m[1]!)
    }
    child.stdout!.on('data', check)
    void exited.then((code) => reject(new Error(`host exited (${code}) before it was ready:\n${err}`)))
  })
  ready.catch(() => undefined)
  return { child, stdout: () => out, stderr: () => err, ready, exited }
}

/** A free port on 127.0.0.1 (bound, then released); the shared one. @example const port = await freePort() */
export { freePort } from '../fixtures/ports.ts'

/**
 * Polls until the check holds (or times out, returning false); the shared `eventually`. @example await until(() =>
 * fixture.cookies.length > 0)
 */
export { eventually as until } from '../fixtures/processes.ts'
