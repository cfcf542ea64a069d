/**
 * An errand's files folder across a park (F3, issue #25): read with its bytes from the runtime
 * just before the context closes, sealed inside the errand's record (the same AES-256-GCM payload
 * as its cookies and tabs, S1), and written into the resumed context's new folder. A runtime
 * without folders (a remote DevTools browser's errands, the memory runtime without `files`)
 * parks none. The record is removed when the task ends (E3), and its files with it. At most
 * {@link MAX_PARKED_FILES_BYTES} of a folder park (the record is one JSON payload; see ADR 0030).
 *
 * A crashed context's folder is not lost: the runtime sets it aside, and the heal claims it for
 * the new context (`claimAsideFiles`); an errand that parks instead seals it in its record
 * (`packAsideFiles`) and one that ends drops it (`dropAsideFiles`), so no folder outlives the
 * heal that did not come (K3, ADR 0030).
 *
 * @example
 * const files = yield* packFiles(runtime, contextId)        // SealedFile[] | undefined
 * yield* unpackFiles(runtime, newContextId, record.files)   // the folder as it was
 * yield* claimAsideFiles(runtime, errandId, healedContextId) // the crashed context's files, moved
 */
import type { ContextError, ContextId, PackedFile, PackedFolder, RuntimeShape } from '@errands/runtime'
import type { SealedFile } from '@errands/store'
import { Effect } from 'effect'

/**
 * The most bytes of files one parked record holds: 256 MiB, base64 in the sealed JSON payload
 * (~342 MiB), well under Node's longest string and Postgres' 1 GB `bytea`. A folder over it parks
 * its oldest files that fit; the others are said in health and dropped.
 */
export const MAX_PARKED_FILES_BYTES = 256 * 1024 * 1024

/**
 * The folder's files for a parked record (none when empty, or when the runtime keeps no folder
 * for the context: it says `invalid`), and the names left out for want of room.
 *
 * @example
 * const { files, left } = yield* packFiles(runtime, contextId)
 */
export const packFiles = (runtime: RuntimeShape, contextId: ContextId, maxBytes = MAX_PARKED_FILES_BYTES) =>
  sealedForm(runtime.files.pack(contextId, maxBytes))

/**
 * The files of the folders a crashed context of the errand left aside, for its parked record
 * when it parks instead of healing (its heals spent, a shutdown, a parking status): they are
 * sealed like a live folder's, then dropped (`dropAsideFiles`).
 *
 * @example
 * const { files, left } = yield* packAsideFiles(runtime, errandId)
 */
export const packAsideFiles = (runtime: RuntimeShape, errandId: string, maxBytes = MAX_PARKED_FILES_BYTES) =>
  sealedForm(runtime.files.packAside(errandId, maxBytes))

const sealedForm = (read: Effect.Effect<PackedFolder, ContextError>) =>
  read.pipe(
    Effect.map(
      ({ files, left }): Packed => ({
        files:
          files.length === 0
            ? undefined
            : files.map((f) => ({
                name: f.name,
                type: f.type,
                at: f.at,
                source: f.source,
                origin: f.origin,
                data: Buffer.from(f.bytes).toString('base64'),
              })),
        left,
      }),
    ),
    // A context with no folder (the runtime says `invalid`) has nothing to park.
    Effect.catchTag('RuntimeError', (e) => (e.reason === 'invalid' ? Effect.succeed(none) : Effect.fail(e))),
  )

/** What `packFiles` gives: the sealed form of the files that fit, and the names left out. */
export interface Packed {
  readonly files: ReadonlyArray<SealedFile> | undefined
  readonly left: ReadonlyArray<string>
}

const none: Packed = { files: undefined, left: [] }

/** Puts a parked record's files into the resumed context's folder (nothing when it had none). */
export const unpackFiles = (
  runtime: RuntimeShape,
  contextId: ContextId,
  files: ReadonlyArray<SealedFile> | undefined,
) =>
  files === undefined || files.length === 0
    ? Effect.void
    : runtime.files.unpack(
        contextId,
        files.map((f): PackedFile => {
          const bytes = new Uint8Array(Buffer.from(f.data, 'base64'))
          return {
            name: f.name,
            type: f.type,
            at: f.at,
            source: f.source,
            origin: f.origin,
            size: bytes.byteLength,
            bytes,
          }
        }),
      )

/**
 * Moves the folders a crashed context of the errand left aside into its healed context's folder; answers how many
 * files moved.
 */
export const claimAsideFiles = (runtime: RuntimeShape, errandId: string, contextId: ContextId) =>
  runtime.files.claimAside(errandId, contextId)

/** Removes the folders a crashed context of the errand left aside (its heal will not come). */
export const dropAsideFiles = (runtime: RuntimeShape, errandId: string) => runtime.files.dropAside(errandId)
