/**
 * The errand's downloads as MCP resources (issue #25, F2): `resources/list` shows each file of
 * the errand's own files folder that a page downloaded, as `errands://downloads/<name>` (the
 * name URI-encoded) with its name, media type and size; `resources/read` answers its bytes — as
 * `text` for a text type, as a base64 `blob` otherwise. A name the folder does not hold is an
 * `InvalidParams` error naming it. The list is the session's errand's only: another session's
 * client never sees these (it lists its own errand's).
 *
 * When a download of a page the session's tools saw has landed, the server sends
 * `notifications/resources/list_changed`.
 *
 * @example
 * registerDownloads(server, errand, runtime)
 * await client.readResource({ uri: 'errands://downloads/report.txt' })
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { Effect, Either, Runtime } from 'effect'
import type { EngineFailure, ErrandBrowser } from './ErrandBrowser.ts'

/** The URI scheme and host of a download. @example downloadUri('a b.txt') // 'errands://downloads/a%20b.txt' */
export const DOWNLOADS_URI = 'errands://downloads/'

/** The resource URI of the download called `name`. @example downloadUri('report.pdf') */
export const downloadUri = (name: string): string => `${DOWNLOADS_URI}${encodeURIComponent(name)}`

/**
 * Whether a media type is text (answered as `text`, not a base64 `blob`). @example isTextType('application/json') //
 * true
 */
export const isTextType = (type: string): boolean => {
  const base = type.split(';')[0]!.trim().toLowerCase()
  return (
    base.startsWith('text/') ||
    base === 'application/json' ||
    base === 'application/xml' ||
    base.endsWith('+json') ||
    base.endsWith('+xml')
  )
}

const run = async <A>(runtime: Runtime.Runtime<never>, effect: Effect.Effect<A, EngineFailure>): Promise<A> => {
  const r = await Runtime.runPromise(runtime)(Effect.either(effect))
  if (Either.isLeft(r)) throw new McpError(ErrorCode.InternalError, r.left.message)
  return r.right
}

/**
 * Registers the downloads template on `server`, when the errand keeps files (nothing otherwise).
 *
 * @example
 * registerDownloads(server, errand, Runtime.defaultRuntime)
 */
export const registerDownloads = (server: McpServer, errand: ErrandBrowser, runtime: Runtime.Runtime<never>): void => {
  const files = errand.files
  if (files === undefined) return
  const downloads = () => run(runtime, files.downloads())
  server.registerResource(
    'downloads',
    new ResourceTemplate(`${DOWNLOADS_URI}{name}`, {
      list: async () => ({
        resources: (await downloads()).map((f) => ({
          uri: downloadUri(f.name),
          name: f.name,
          mimeType: f.type,
          size: f.size,
        })),
      }),
    }),
    { title: 'Downloads', description: "A file this browser downloaded, from the errand's own files folder." },
    async (uri, variables) => {
      const raw = variables.name
      const name = decodeURIComponent(Array.isArray(raw) ? raw.join('/') : (raw ?? ''))
      // Only a listed download: a staged file or an upload is not one of the errand's downloads.
      const listed = (await downloads()).find((f) => f.name === name)
      const file = listed === undefined ? undefined : await run(runtime, files.read(name))
      if (listed === undefined || file === undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `No download called ${JSON.stringify(name.slice(0, 200))} in this errand; resources/list (or ` +
            `browser_downloads) names its downloads.`,
        )
      }
      const type = listed.type || file.type
      return {
        contents: [
          isTextType(type)
            ? { uri: uri.href, mimeType: type, text: new TextDecoder().decode(file.bytes) }
            : { uri: uri.href, mimeType: type, blob: Buffer.from(file.bytes).toString('base64') },
        ],
      }
    },
  )
}
