import { ASKS_THE_PERSON, acts, onlyReads, PAGE_READS } from '@errands/runtime'
import { wheelRefusal } from '@errands/sessions'
import { Effect } from 'effect'
import { afterEach, describe, expect, it } from 'vitest'
import { toolsWith } from './server.ts'
import { personTools } from './tools/person.ts'
import { errandTest, linkedClient } from './testing.ts'

// One decision of what acts (@errands/runtime acting.ts), for the host's verbs, the MCP tools and
// the DevTools methods: what it names are real tools, the listed readOnlyHint follows it, and while
// a person drives exactly the tools it does not name are refused.
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

  it('names the tools that ask the person as they are, and counts them neither as reads nor as acting', () => {
    expect(personTools.map((t) => t.name).sort()).toEqual([...ASKS_THE_PERSON.mcp].sort())
    for (const name of ASKS_THE_PERSON.mcp)
      expect([name, onlyReads(name), acts('mcp', name)]).toEqual([name, false, false])
  })

  it('while a person drives, a tool it does not name is refused and one it names runs', async () => {
    const linked = await linkedClient({
      errand: errandTest({
        // The boundary's one wheel check, with a person at the wheel.
        wheelRefusal: (tool) => wheelRefusal(() => true, 'session:test-key', 'mcp', tool)?.message,
        onPage: () => Effect.succeed('x' as never),
      }),
    })
    closing.push(linked.close)
    const acted = await linked.client.callTool({ name: 'browser_navigate', arguments: { url: 'http://127.0.0.1:1/' } })
    expect(acted.isError).toBe(true)
    expect(JSON.stringify(acted.content)).toContain('A person is using this browser;')
    const read = await linked.client.callTool({ name: 'browser_find', arguments: { text: 'x' } })
    expect(JSON.stringify(read.content)).not.toContain('A person is using this browser;')
  })
})
