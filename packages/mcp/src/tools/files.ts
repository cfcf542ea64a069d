/**
 * The errand's files folder (issue #25, docs/files.md): `browser_downloads` lists what the
 * errand's pages downloaded — saved under their suggested names (deduplicated: `report (1).pdf`),
 * never ending the session (Playwright MCP issue #1768). A listed name is what
 * `browser_file_upload` and `browser_drop` take, and what `GET /v1/session/downloads/:name` reads.
 *
 * @example
 * await client.callTool({ name: 'browser_downloads', arguments: {} })
 */
import { Effect } from 'effect'
import { ToolRefused } from '../errors.ts'
import { text, tool } from './tool.ts'

/** `browser_downloads`. @example browserDownloads.run(ctx, {}) */
export const browserDownloads = tool({
  name: 'browser_downloads',
  title: 'List downloads',
  description:
    "List the files this browser downloaded (name, size, type, from where). They stay in this errand's own files " +
    'folder: upload one with browser_file_upload by its name.',
  inputSchema: {},
  run: (ctx) =>
    Effect.gen(function* () {
      const files = ctx.errand.files
      if (files === undefined)
        return yield* new ToolRefused({ reason: 'invalid-argument', message: 'This browser keeps no downloads here.' })
      const list = yield* files.downloads()
      if (list.length === 0)
        return text('### Downloads\nNo downloads yet: click a download link, then call browser_downloads again.')
      const lines = list.map(
        (f) =>
          `- ${JSON.stringify(f.name)} (${f.size} bytes, ${f.type}) from ${f.source || 'the page'} at ` +
          `${new Date(f.at).toISOString()}`,
      )
      return text(`### Downloads\n${lines.join('\n')}`)
    }),
})

/** The files tools. @example fileTools.map((t) => t.name) */
export const fileTools = [browserDownloads] as const
