/**
 * Drives `engine-child.ts` in a child process: one request line, one reply line.
 *
 * @example
 * const engine = await spawnEngine(dataDir)
 * await engine.call({ op: 'open', id: 't' })
 * await engine.exit()
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

export const spawnEngine = async (dataDir: string) => {
  // `node --import tsx`, not the `tsx` command: that one runs the script in a second process, so a
  // SIGKILL would reach only the wrapper and the engine would live on.
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'engine-child.ts')], {
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  const next = async (): Promise<Record<string, unknown>> => {
    const { value, done } = await lines.next()
    if (done) throw new Error('the engine process ended')
    return JSON.parse(value as string) as Record<string, unknown>
  }
  await next() // ready
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    pid: child.pid!,
    call: async <T = unknown>(cmd: Record<string, unknown>): Promise<T> => {
      child.stdin!.write(JSON.stringify(cmd) + '\n')
      const reply = await next()
      if ('error' in reply) throw new Error(String(reply['error']))
      return reply['ok'] as T
    },
    exit: async () => {
      child.stdin!.write(JSON.stringify({ op: 'exit' }) + '\n')
      return exited
    },
    kill: async () => {
      child.kill('SIGKILL')
      return exited
    },
  }
}
