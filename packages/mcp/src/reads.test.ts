import { onlyReads, PAGE_READS } from '@errands/runtime'
import { Effect } from 'effect'
import { afterEach, describe, expect, it } from 'vitest'
import { toolsWith } from './server.ts'
import { errandTest, linkedClient } from './testing.ts'

// One list of the calls that only read (@errands/runtime reads.ts), for the host's verbs and the
// MCP tools: what it names are real tools, the listed readOnlyHint follows it, and while a person
// drives exactly the tools it does not name are refused.
const closing: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of closing.splice(0)) await c()
})

describe('the one list of read-only calls (P1)', () => {
  it('names only tools that exist, and the tools list its readOnlyHint', async () => {
    const names = toolsWith(['vision', 'pdf']).map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining([...PAGE_READS.mcp]))
    const linked = await linkedClient({ errand: errandTest({}), caps: ['vision', 'pdf'] })
    closing.push(linked.close)
    for (const t of (await linked.client.listTools()).tools) {
      if (t.name === 'browser_observe') continue
      expect([t.name, t.annotations?.readOnlyHint]).toEqual([t.name, onlyReads(t.name)])
    }
  })

  it('while a person drives, a tool it does not name is refused and one it names runs', async () => {
    const linked = await linkedClient({
      errand: errandTest({
        personDriving: () => 'A person is using this browser.',
        onPage: () => Effect.succeed('x' as never),
      }),
    })
    closing.push(linked.close)
    const acted = await linked.client.callTool({ name: 'browser_navigate', arguments: { url: 'http://127.0.0.1:1/' } })
    expect(acted.isError).toBe(true)
    expect(JSON.stringify(acted.content)).toContain('A person is using this browser.')
    const read = await linked.client.callTool({ name: 'browser_find', arguments: { text: 'x' } })
    expect(JSON.stringify(read.content)).not.toContain('A person is using this browser.')
  })
})
