import { Effect, Schema } from 'effect'
import { describe, expect, it } from 'vitest'
import { PageLogs } from './pageLog.ts'
import { RefBook } from './refs.ts'
import { runBrowserTool, ToolResult } from './remote.ts'
import { errandTest } from './testing.ts'

const ctx = (
  tabs: () =>
    | Effect.Effect<never, never>
    | Effect.Effect<ReadonlyArray<{ id: string; url: string; title: string; active: boolean }>>,
) => ({ errand: errandTest({ tabs: tabs as never }), refs: new RefBook(), logs: new PageLogs() })

const textOf = (r: ToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : `[${c.mimeType}]`)).join('\n')

describe('a tool call run where the errand is (#24, A2 in a cluster)', () => {
  it("runs the named tool with its own schema's arguments, and its result crosses as a ToolResult", async () => {
    const result = await Effect.runPromise(
      runBrowserTool(
        'browser_tabs',
        ctx(() => Effect.succeed([{ id: 't1', url: 'https://shop.example/', title: 'Shop', active: true }])),
        { action: 'list' },
      ),
    )
    expect(result.isError).toBeFalsy()
    expect(textOf(result)).toContain('Shop')
    expect(Schema.decodeUnknownSync(ToolResult)(Schema.encodeSync(ToolResult)(result))).toEqual(result)
  })

  it(
    'answers an unknown tool, arguments that do not fit, and a failure of the engine as error results, never as a ' +
      'failed call',
    async () => {
      const unknown = await Effect.runPromise(
        runBrowserTool(
          'browser_teleport',
          ctx(() => Effect.succeed([])),
          {},
        ),
      )
      expect(unknown.isError).toBe(true)
      expect(textOf(unknown)).toMatch(/no tool "browser_teleport"/)
      const bad = await Effect.runPromise(
        runBrowserTool(
          'browser_tabs',
          ctx(() => Effect.succeed([])),
          { action: 'explode' },
        ),
      )
      expect(bad.isError).toBe(true)
      expect(textOf(bad)).toMatch(/do not fit its schema \(action\)/)
      const busy = await Effect.runPromise(
        runBrowserTool(
          'browser_tabs',
          ctx(() => Effect.fail({ _tag: 'AllBusy', message: 'All 4 browser slots are busy.' }) as never),
          { action: 'list' },
        ),
      )
      expect(busy.isError).toBe(true)
      expect(textOf(busy)).toContain('All 4 browser slots are busy.')
    },
  )
})
