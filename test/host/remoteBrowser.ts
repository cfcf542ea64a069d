/**
 * A second Chromium with `--remote-debugging-port=0` on loopback: the "browser elsewhere" of the
 * remote tests (R2). Its DevTools address is read from the line Chromium prints.
 *
 * @example
 * const remote = await launchRemoteChromium()
 * remote.wsUrl // 'ws://127.0.0.1:PORT/devtools/browser/…'
 * await remote.close()
 */
import { CHROMIUM_ARGS, resolveExecutable } from '@errands/runtime-chromium'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A running remote Chromium. */
export interface RemoteChromium {
  readonly wsUrl: string
  /** `http://127.0.0.1:PORT` */
  readonly httpUrl: string
  readonly pid: number
  readonly close: () => Promise<void>
}

/**
 * Starts it on a fresh profile; `close` kills it and removes the profile.
 *
 * @example
 * const remote = await launchRemoteChromium()
 */
export const launchRemoteChromium = async (): Promise<RemoteChromium> => {
  const profile = mkdtempSync(join(tmpdir(), 'errands-remote-'))
  const child = spawn(
    resolveExecutable(),
    [
      ...CHROMIUM_ARGS,
      '--remote-debugging-port=0',
      '--remote-debugging-address=127.0.0.1',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, TMPDIR: profile },
      // Its own process group, so `close` ends the whole tree it started (renderers, zygotes) at once.
      detached: true,
    },
  )
  let err = ''
  const wsUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`remote Chromium did not start:\n${err}`)), 60_000)
    child.stderr!.on('data', (d) => {
      err += d
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err)
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    })
    child.once('exit', (code) => reject(new Error(`remote Chromium exited (${code}):\n${err}`)))
  })
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  return {
    wsUrl,
    httpUrl: new URL(wsUrl).origin.replace('ws:', 'http:'),
    pid: child.pid!,
    close: async () => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
      await exited
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
    },
  }
}
