/**
 * Drives `engine-child.ts` in a child process: one request line, one reply line; event lines
 * (state changes) go to listeners, so a test can `kill()` the engine at a moment it chooses.
 *
 * @example
 * const engine = await spawnFaultEngine(dataDir)
 * engine.onEvent((e) => e.state === 'parking' && void engine.kill())
 * await engine.call({ op: 'task', id: 't', status: 'interrupted' })
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

const root = join(import.meta.dirname, '../..')

/** A state change of one errand in the child. */
export interface EngineEvent {
  readonly id: string
  readonly state: string
  readonly detail: string
}

export const spawnFaultEngine = async (dataDir: string) => {
  // Node itself with tsx's loader, not the `tsx` CLI: that CLI runs the program in a second
  // process, and a SIGKILL of the CLI would leave the engine running.
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'engine-child.ts')], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      // A killed engine's browsers may still hold its stdout; let go of both pipes ourselves.
      child.stdin!.destroy()
      child.stdout!.destroy()
      resolve(code)
    }))
  const listeners = new Set<(e: EngineEvent) => void>()
  const waiting: Array<(line: Record<string, unknown> | undefined) => void> = []
  const replies: Array<Record<string, unknown>> = []
  let ended = false
  createInterface({ input: child.stdout! })
    .on('line', (line) => {
      const message = JSON.parse(line) as Record<string, unknown>
      if (message['event'] !== undefined) {
        for (const l of listeners) l(message as unknown as EngineEvent)
        return
      }
      const w = waiting.shift()
      if (w) w(message)
      else replies.push(message)
    })
    .on('close', () => {
      ended = true
      for (const w of waiting.splice(0)) w(undefined)
    })
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const ready = replies.shift()
      if (ready) return resolve(ready)
      if (ended) return reject(new Error('the engine process ended'))
      waiting.push((line) => (line ? resolve(line) : reject(new Error('the engine process ended'))))
    })
  await next() // ready
  return {
    pid: child.pid!,
    /** Sends a command and waits for its reply (rejects if the process dies first). */
    call: async <T = unknown>(cmd: Record<string, unknown>): Promise<T> => {
      child.stdin!.write(JSON.stringify(cmd) + '\n')
      const reply = await next()
      if ('error' in reply) throw new Error(String(reply['error']))
      return reply['ok'] as T
    },
    onEvent: (listener: (e: EngineEvent) => void) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    exit: async () => {
      child.stdin!.write(JSON.stringify({ op: 'exit' }) + '\n')
      return exited
    },
    /** SIGKILL, by this child's pid only. */
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      return exited
    },
    exited,
  }
}

export type FaultEngine = Awaited<ReturnType<typeof spawnFaultEngine>>
