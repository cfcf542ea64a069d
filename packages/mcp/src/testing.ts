/**
 * Test helpers: an {@link ErrandBrowser} stand-in whose given methods answer and every other one
 * dies loudly (naming it), and an SDK `Client` linked in-process to a session's server — no
 * browser, no port.
 *
 * @example
 * const errand = errandTest({ navigate: () => Effect.fail(busy) })
 * const { client } = await linkedClient({ errand })
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Effect } from 'effect'
import type { ErrandBrowser } from './ErrandBrowser.ts'
import { RefBook } from './refs.ts'
import { makeErrandServer, type ErrandServerOptions } from './server.ts'

/**
 * An errand whose given methods answer; any other dies with a message naming it.
 *
 * @example
 * errandTest({ tabs: () => Effect.succeed([]) })
 */
export const errandTest = (partial: Partial<ErrandBrowser> & { readonly key?: string }): ErrandBrowser =>
  new Proxy({ key: 'test-key', ...partial } as ErrandBrowser, {
    get: (target, name: string) =>
      name in target
        ? target[name as keyof ErrandBrowser]
        : // Absent, a tool call runs here (a single host's errand) and nobody has the wheel, as on a real one.
          name === 'elsewhere' || name === 'wheelRefusal'
          ? undefined
          : () => Effect.dieMessage(`errandTest: "${name}" was not provided`),
  })

/**
 * A session's server with an SDK client linked to it in-process.
 *
 * @example
 * const { client, close } = await linkedClient({ errand: errandTest({}) })
 */
export const linkedClient = async (options: Partial<ErrandServerOptions> & { readonly errand: ErrandBrowser }) => {
  const logs: Array<string> = []
  const { server, close } = makeErrandServer({ refs: new RefBook(), log: (l) => logs.push(l), ...options })
  const [a, b] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: 'unit', version: '1' })
  await Promise.all([server.connect(a), client.connect(b)])
  return {
    client,
    logs,
    close: async () => {
      close()
      await client.close()
      await server.close()
    },
  }
}
