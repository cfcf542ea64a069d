/**
 * The MCP face's own typed errors. Each becomes a tool result with `isError: true` and a message
 * a model can act on — never a crash of the server, never a JSON-RPC error (except the SDK's own
 * for an unknown tool or arguments that do not fit, which it also returns as error results).
 *
 * @example
 * Effect.fail(new StaleRef({ reason: 'not-in-snapshot', message: 'Ref e9 is not in the latest snapshot …' }))
 */
import { Schema } from 'effect'

/**
 * A ref the latest snapshot of the tab does not hold, or whose element has gone since.
 *
 * @example
 * new StaleRef({ reason: 'gone', message: 'The element is no longer on the page; take a new snapshot.' })
 */
export class StaleRef extends Schema.TaggedError<StaleRef>('@errands/mcp/StaleRef')('StaleRef', {
  reason: Schema.Literal('no-snapshot', 'not-in-snapshot', 'gone'),
  message: Schema.String,
}) {}

/**
 * Arguments the schema let through that still do not make a request (a tab index out of range,
 * `ref` without `element` …).
 *
 * @example
 * new ToolRefused({ reason: 'invalid-argument', message: 'There is no tab 7; list them with browser_tabs.' })
 */
export class ToolRefused extends Schema.TaggedError<ToolRefused>('@errands/mcp/ToolRefused')('ToolRefused', {
  reason: Schema.Literal('invalid-argument', 'no-lease', 'no-modal'),
  message: Schema.String,
}) {}

/**
 * Why the Streamable HTTP endpoint refused a request before any MCP session saw it (outward:
 * HTTP 4xx with the host's JSON error body).
 *
 * @example
 * new McpHttpRefused({ reason: 'unknown-session', status: 404, message: 'No MCP session has this id …' })
 */
export class McpHttpRefused extends Schema.TaggedError<McpHttpRefused>('@errands/mcp/McpHttpRefused')(
  'McpHttpRefused',
  {
    reason: Schema.Literal(
      'unknown-session',
      'not-initialize',
      'key-mismatch',
      'too-many-sessions',
      'too-many-anonymous',
      'shutting-down',
    ),
    status: Schema.Literal(400, 404, 429, 503),
    message: Schema.String,
  },
) {}

/**
 * A file `browser_file_upload` or `browser_drop` was asked for that is not one of the errand's
 * own files: outside its uploads folder (or a link out of it), missing, or asked of a server that
 * has no uploads folder. An MCP client never gets the server to read other files of the host.
 *
 * @example
 * new UploadRefused({ reason: 'outside-folder', message: '/etc/passwd is not in this errand\'s uploads folder …' })
 */
export class UploadRefused extends Schema.TaggedError<UploadRefused>('@errands/mcp/UploadRefused')('UploadRefused', {
  reason: Schema.Literal('no-folder', 'outside-folder', 'not-a-file'),
  message: Schema.String,
}) {}
