/**
 * The files an errand may upload (`browser_file_upload`, `browser_drop`): only those of its own
 * files folder (issue #25, docs/files.md) — the folder `/v1/upload` reads and
 * `POST /v1/session/files` stages into, and where the errand's downloads land — named by plain
 * name. Playwright MCP reads any path the client names (inside its workspace roots); here
 * anything but a plain name of a file in the folder is an {@link UploadRefused}: a path, `..`,
 * a name that is not there (a link that leads out or a directory is not a file of the folder
 * either: the runtime reads regular files only). The bytes are read through the errand, so the
 * server never opens a path a client named.
 *
 * @example
 * const files = yield* errandUploads(errand, ['report.pdf']) // [{ name, mimeType, buffer }]
 */
import { isAbsolute } from 'node:path'
import { Effect } from 'effect'
import type { ErrandBrowser } from './ErrandBrowser.ts'
import { UploadRefused } from './errors.ts'

/** One file to hand to the page: Playwright's file payload. */
export interface ErrandUpload {
  readonly name: string
  readonly mimeType: string
  readonly buffer: Buffer
}

/** A plain file name: no separator, not `.` or `..`, no NUL, 1–255 characters (`@errands/runtime`'s rule). */
const isPlainName = (name: string): boolean =>
  name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !/[/\\\0]/.test(name)

const HOW =
  'stage files with POST /v1/session/files?name=… (same session key), or use what the errand downloaded ' +
  '(browser_downloads), then name them'

/**
 * The files `names` names, each a file of the errand's folder, read through the errand.
 *
 * @example
 * yield* errandUploads(errand, ['a.txt']) // or UploadRefused('outside-folder') for '/etc/passwd'
 */
export const errandUploads = (
  errand: ErrandBrowser,
  names: ReadonlyArray<string>,
): Effect.Effect<ReadonlyArray<ErrandUpload>, UploadRefused> =>
  Effect.gen(function* () {
    if (names.length === 0) return []
    const files = errand.files
    if (files === undefined) {
      return yield* new UploadRefused({
        reason: 'no-folder',
        message: 'This server keeps no files for errands, so it uploads none; the page gets no file.',
      })
    }
    const out: Array<ErrandUpload> = []
    for (const name of names) {
      if (!isPlainName(name)) {
        return yield* new UploadRefused({
          reason: 'outside-folder',
          message:
            `${JSON.stringify(name.slice(0, 200))} is ` +
            `${isAbsolute(name) ? 'a path' : 'not a plain file name'}: only files of this errand's own folder can be ` +
            `uploaded, by name; ${HOW}.`,
        })
      }
      const read = yield* Effect.mapError(
        files.read(name),
        (e) =>
          new UploadRefused({
            reason: 'not-a-file',
            message: `${JSON.stringify(name.slice(0, 200))} could not be read: ${e.message}`,
          }),
      )
      if (read === undefined) {
        return yield* new UploadRefused({
          reason: 'not-a-file',
          message: `${JSON.stringify(name.slice(0, 200))} is not a file of this errand's folder; ${HOW}.`,
        })
      }
      out.push({ name, mimeType: read.type, buffer: Buffer.from(read.bytes) })
    }
    return out
  })
