/**
 * A whole engine in a child process for the fault tests, driven by JSON lines on stdin (one reply
 * line each on stdout). Besides replies it prints event lines `{"event":"state",…}` for every
 * errand state change, so the parent can SIGKILL it at a chosen moment of a park or a resume.
 *
 * Commands: {op:'open',id} {op:'visit',id,url,then,local} {op:'task',id,status} {op:'resume',id}
 * {op:'state',id} {op:'list'} {op:'health'} {op:'exit'}
 */
import { Chromium, engineLayer } from '@errands/engine'
import { defaultSettings, Supervisor } from '@errands/supervisor'
import { Effect, ManagedRuntime } from 'effect'
import { createInterface } from 'node:readline'

const dataDir = process.env['DATA_DIR']!
const managed = ManagedRuntime.make(engineLayer({ settings: defaultSettings({ dataDir, maxErrands: 4, snapshotDebounceMs: 300 }) }))
const { supervisor, chromium } = await managed.runPromise(Effect.all({ supervisor: Supervisor, chromium: Chromium }))
const run = <A, E>(e: Effect.Effect<A, E>) => managed.runPromise(e)
const print = (value: unknown) => process.stdout.write(JSON.stringify(value) + '\n')

supervisor.onChange((view) => print({ event: 'state', id: view.conversationId, state: view.state, detail: view.detail }))

const stateOf = async (id: string) => {
  const contextId = supervisor.contextOf(id)
  if (contextId === undefined) return { open: false }
  const tabs = await run(chromium.tabs(contextId))
  const storage = await run(chromium.storageState(contextId))
  return { open: true, tabs: tabs.map((t) => ({ url: t.url, active: t.active })), storage }
}

const handle = async (cmd: Record<string, string>): Promise<unknown> => {
  const id = cmd['id']!
  switch (cmd['op']) {
    case 'open': return run(supervisor.open({ id, kind: 'task' }))
    case 'visit': {
      // One tab on the site: add to the basket cookie, land on a page whose URL names the version,
      // and put the version into localStorage.
      await run(supervisor.use(id, (b) => Effect.gen(function* () {
        const tabs = (yield* chromium.tabs(b.contextId)).filter((t) => t.url.startsWith('http'))
        const tab = tabs[0] ?? (yield* chromium.openTab(b.contextId, cmd['url']!))
        if (tabs[0] !== undefined) yield* chromium.navigate(b.contextId, tab.id, cmd['url']!)
        yield* chromium.navigate(b.contextId, tab.id, cmd['then']!)
        const page = chromium.pageOf(b.contextId, tab.id)!
        yield* Effect.promise(() => page.evaluate((v) => localStorage.setItem('basket', v), cmd['local']!))
      })))
      return stateOf(id)
    }
    case 'task': return run(supervisor.taskChanged(id, cmd['status'] as never))
    case 'resume': await run(supervisor.resume(id)); return stateOf(id)
    case 'state': return stateOf(id)
    case 'list': return run(supervisor.list)
    case 'health': return run(supervisor.health)
    case 'exit': await managed.dispose(); print({ ok: 'bye' }); process.exit(0)
  }
  throw new Error(`unknown op ${cmd['op']}`)
}

print({ ready: true, pid: process.pid })
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue
  try {
    print({ ok: await handle(JSON.parse(line)) })
  } catch (e) {
    print({ error: (e as { _tag?: string })._tag ?? String(e) })
  }
}
