// ERRANDS_MCP_CAPS (issue #25): the host's /mcp offers Playwright MCP's optional capabilities
// when the host setting names them, as `errands mcp --caps` does on stdio. A real host on real
// Chromium, the SDK's own Client: the capability's tools are listed and work; a host without
// the setting offers the default set only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestHost, type TestHost } from '../host/harness.ts'
import { httpClient } from './clients.ts'

const VISION = [
  'browser_mouse_click_xy',
  'browser_mouse_down',
  'browser_mouse_drag_xy',
  'browser_mouse_move_xy',
  'browser_mouse_up',
  'browser_mouse_wheel',
]

let withCaps: TestHost
let without: TestHost
beforeAll(async () => {
  withCaps = await startTestHost({ ERRANDS_MAX_SESSIONS: '2', ERRANDS_MCP_CAPS: 'vision,pdf' })
  without = await startTestHost({ ERRANDS_MAX_SESSIONS: '2' })
})
afterAll(async () => {
  await withCaps?.stop()
  await without?.stop()
})

describe("the host's /mcp takes ERRANDS_MCP_CAPS", () => {
  it('lists and runs the vision and pdf tools with the setting, and none of them without it', async () => {
    const mcp = await httpClient(withCaps.url)
    const plain = await httpClient(without.url)
    try {
      const names = (await mcp.client.listTools()).tools.map((t) => t.name)
      expect(names).toEqual(expect.arrayContaining([...VISION, 'browser_pdf_save']))
      const saved = await mcp.client.callTool({ name: 'browser_pdf_save', arguments: { filename: 'blank.pdf' } })
      const parts = saved.content as Array<{ type: string; resource?: { mimeType?: string; blob?: string } }>
      expect(saved.isError ?? false).toBe(false)
      const pdf = parts.find((p) => p.type === 'resource')?.resource
      expect(pdf?.mimeType).toBe('application/pdf')
      expect(
        Buffer.from(pdf?.blob ?? '', 'base64')
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-')
      expect((await mcp.call('browser_mouse_move_xy', { x: 10, y: 10 })).isError).toBe(false)

      const plainNames = (await plain.client.listTools()).tools.map((t) => t.name)
      expect(plainNames.filter((n) => VISION.includes(n) || n === 'browser_pdf_save')).toEqual([])
    } finally {
      await mcp.end()
      await plain.end()
    }
  })
})
