/**
 * The errand's files folder through the host (issue #25, F1–F3): its downloads listed and read,
 * and files staged for `/v1/upload` (and MCP's upload tools). Every call brings the session up
 * like a page verb and works on its own context's folder only — another session's files are
 * never named, let alone read. Staging is capped per file and per errand (413).
 *
 * @example
 * const files = makeFiles(core, driving)
 * yield* files.stageFile(sessionTarget(key), 'receipt.pdf', bytes) // { name: 'receipt.pdf', size: 1234 }
 */
import { Effect } from 'effect'
import { FileNotFound, FileTooLarge } from '../errors.ts'
import type { ErrandFileView } from '../filesAnswers.ts'
import type { BrowsingShape } from './Browsing.ts'
import type { makeDriving } from './driving.ts'
import { runtimeCall } from './pageCalls.ts'
import type { VerbCore } from './verbCore.ts'

/** The default caps: 25 MiB a staged file, 100 MiB an errand's folder. */
export const DEFAULT_FILES_CAPS = { maxFileBytes: 25 * 1024 * 1024, maxErrandBytes: 100 * 1024 * 1024 }

/**
 * The file verbs of `BrowsingShape`.
 *
 * @example
 * const { downloads, download, stageFile } = makeFiles(core, makeDriving(core))
 */
export const makeFiles = (
  core: VerbCore,
  driving: ReturnType<typeof makeDriving>,
): Pick<BrowsingShape, 'downloads' | 'download' | 'stageFile'> => {
  const caps = core.options.files ?? DEFAULT_FILES_CAPS
  // One staging at a time per errand's folder: its size is read, checked and the file written as
  // one step, so parallel uploads cannot each see room that only one of them has (F1).
  const staging = new Map<string, { readonly lock: Effect.Semaphore; users: number }>()
  const oneAtATime = <A, E, R>(contextId: string, run: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const slot = staging.get(contextId) ?? { lock: Effect.unsafeMakeSemaphore(1), users: 0 }
      slot.users++
      staging.set(contextId, slot)
      return slot.lock
        .withPermits(1)(run)
        .pipe(
          Effect.ensuring(
            Effect.sync(() => {
              if (--slot.users === 0) staging.delete(contextId)
            }),
          ),
        )
    })
  const f = core.runtime.files
  return {
    downloads: (target) =>
      driving.verb('downloads', target, ({ contextId }) =>
        Effect.map(runtimeCall('downloads', core.deadline, f.list(contextId)), (list) =>
          list.flatMap(
            (file): Array<ErrandFileView> =>
              file.origin === 'download'
                ? [{ name: file.name, size: file.size, type: file.type, at: file.at, source: file.source ?? '' }]
                : [],
          ),
        ),
      ),
    download: (target, name) =>
      driving.verb('download', target, ({ contextId }) =>
        Effect.gen(function* () {
          const bytes = yield* runtimeCall('download', core.deadline, f.read(contextId, name))
          if (bytes === undefined) {
            return yield* new FileNotFound({
              reason: 'no-file',
              message:
                `This session has no file ${JSON.stringify(name.slice(0, 200))}; GET /v1/session/downloads ` +
                `lists its files.`,
            })
          }
          const listed = (yield* runtimeCall('download', core.deadline, f.list(contextId))).find(
            (file) => file.name === name,
          )
          return { bytes, type: listed?.type ?? 'application/octet-stream' }
        }),
      ),
    stageFile: (target, name, bytes) =>
      driving.verb('stage file', target, ({ contextId }) =>
        Effect.gen(function* () {
          if (bytes.byteLength > caps.maxFileBytes) {
            return yield* new FileTooLarge({
              reason: 'file-too-large',
              message:
                `A staged file is at most ${caps.maxFileBytes} bytes (ERRANDS_FILES_MAX_FILE_BYTES); this one ` +
                `is ${bytes.byteLength}.`,
            })
          }
          return yield* oneAtATime(
            contextId,
            Effect.gen(function* () {
              const held = (yield* runtimeCall('stage file', core.deadline, f.list(contextId))).reduce(
                (sum, file) => sum + file.size,
                0,
              )
              if (held + bytes.byteLength > caps.maxErrandBytes) {
                return yield* new FileTooLarge({
                  reason: 'errand-full',
                  message:
                    `This errand's files folder holds ${held} bytes; with ${bytes.byteLength} more it would pass ` +
                    `its cap of ${caps.maxErrandBytes} (ERRANDS_FILES_MAX_ERRAND_BYTES).`,
                })
              }
              const file = yield* runtimeCall('stage file', core.deadline, f.stage(contextId, name, bytes))
              return { name: file.name, size: file.size }
            }),
          )
        }),
      ),
  }
}
