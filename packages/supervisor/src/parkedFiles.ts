/**
 * An errand's files folder across a park (F3, issue #25): read with its bytes from the runtime
 * just before the context closes, sealed inside the errand's record (the same AES-256-GCM payload
 * as its cookies and tabs, S1), and written into the resumed context's new folder. A runtime
 * without folders (a remote DevTools browser's errands, the memory runtime without `files`)
 * parks none. The record is removed when the task ends (E3), and its files with it.
 *
 * @example
 * const files = yield* packFiles(runtime, contextId)        // SealedFile[] | undefined
 * yield* unpackFiles(runtime, newContextId, record.files)   // the folder as it was
 */
import type { ContextId, PackedFile, RuntimeShape } from '@errands/runtime'
import type { SealedFile } from '@errands/store'
import { Effect } from 'effect'

/**
 * The folder's files for a parked record; none when the runtime keeps no folder for the context.
 * A folder that cannot be read fails the park (the context then stays open with nothing lost).
 */
export const packFiles = (runtime: RuntimeShape, contextId: ContextId) =>
  runtime.files === undefined
    ? Effect.succeed(undefined)
    : runtime.files.pack(contextId).pipe(
        Effect.map((files): ReadonlyArray<SealedFile> | undefined =>
          files.length === 0
            ? undefined
            : files.map((f) => ({ name: f.name, type: f.type, at: f.at, source: f.source, origin: f.origin, data: Buffer.from(f.bytes).toString('base64') }))),
        // A context with no folder (the runtime says `invalid`) has nothing to park.
        Effect.catchTag('RuntimeError', (e) => (e.reason === 'invalid' ? Effect.succeed(undefined) : Effect.fail(e))),
      )

/** Puts a parked record's files into the resumed context's folder (nothing when it had none). */
export const unpackFiles = (runtime: RuntimeShape, contextId: ContextId, files: ReadonlyArray<SealedFile> | undefined) =>
  runtime.files === undefined || files === undefined || files.length === 0
    ? Effect.void
    : runtime.files.unpack(contextId, files.map((f): PackedFile => {
        const bytes = new Uint8Array(Buffer.from(f.data, 'base64'))
        return { name: f.name, type: f.type, at: f.at, source: f.source, origin: f.origin, size: bytes.byteLength, bytes }
      }))
