/**
 * A whole engine in a child process, driven by JSON lines on stdin (one reply line each on
 * stdout), so tests can restart it or kill -9 it like a real deployment.
 *
 * Commands: {op:'open',id} {op:'tab',id,url} {op:'local',id,tab,key,value} {op:'task',id,status}
 * {op:'resume',id} {op:'state',id} {op:'list'} {op:'health'} {op:'exit'}
 */
import { Chromium, engineLayer } from '@errands/engine'
import { defaultSettings, Supervisor, type SupervisorShape } from '@errands/supervisor'
import { Effect, ManagedRuntime } from 'effect'
import { createInterface } from 'node:readline'

const dataDir = process.env['DATA_DIR']!
const managed = ManagedRuntime.make(engineLayer({ settings: defaultSettings({ dataDir, maxErrands: 4, snapshotDebounceMs: 300 }) }))
const { supervisor, chromium } = await managed.runPromise(Effect.all({ supervisor: Supervisor, chromium: Chromium }))
const run = <A, E>(e: Effect.Effect<A, E>) => managed.runPromise(e)

const stateOf = async (s: SupervisorShape, id: string) => {
  const contextId = s.contextOf(id)
  if (contextId === undefined) return { open: false }
  const tabs = await run(chromium.tabs(contextId))
  const storage = await run(chromium.storageState(contextId))
  return { open: true, tabs: tabs.map((t) => ({ url: t.url, active: t.active })), storage }
}

const handle = async (cmd: Record<string, string>): Promise<unknown> => {
  switch (cmd['op']) {
    case 'open': return run(supervisor.open({ id: cmd['id']!, kind: 'task' }))
    case 'tab': return run(supervisor.use(cmd['id']!, (b) => chromium.openTab(b.contextId, cmd['url']!)))
    case 'local': {
      const contextId = supervisor.contextOf(cmd['id']!)!
      const page = chromium.pageOf(contextId, cmd['tab']!)!
      await page.evaluate(([k, v]) => localStorage.setItem(k!, v!), [cmd['key'], cmd['value']])
      return { ok: true }
    }
    case 'task': return run(supervisor.taskChanged(cmd['id']!, cmd['status'] as never))
    case 'resume': await run(supervisor.resume(cmd['id']!)); return stateOf(supervisor, cmd['id']!)
    case 'state': return stateOf(supervisor, cmd['id']!)
    case 'list': return run(supervisor.list)
    case 'health': return run(supervisor.health)
    case 'exit': await managed.dispose(); process.stdout.write(JSON.stringify({ ok: 'bye' }) + '\n'); process.exit(0)
  }
  throw new Error(`unknown op ${cmd['op']}`)
}

process.stdout.write(JSON.stringify({ ready: true, pid: process.pid }) + '\n')
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue
  try {
    process.stdout.write(JSON.stringify({ ok: await handle(JSON.parse(line)) }) + '\n')
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: (e as { _tag?: string })._tag ?? String(e) }) + '\n')
  }
}
