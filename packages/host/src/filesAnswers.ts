/**
 * The Schemas of the errand's files routes (issue #25, docs/files.md): a plain file name (in a
 * path or a query), the downloads list, a staged file.
 *
 * @example
 * Schema.decodeUnknownSync(StageQuery)({ name: 'receipt.pdf' })
 */
import { Schema } from 'effect'
import { FileName } from './schemas.ts'

/** One download of the errand: its name in the folder, size, media type, when, and from where (no query). */
export const ErrandFileView = Schema.Struct({
  name: Schema.String,
  size: Schema.Number,
  type: Schema.String,
  at: Schema.Number,
  source: Schema.String,
}).annotations({ identifier: 'ErrandFile' })
export type ErrandFileView = typeof ErrandFileView.Type

/** `GET /v1/session/downloads`. */
export const DownloadsAnswer = Schema.Struct({ downloads: Schema.Array(ErrandFileView) }).annotations({
  identifier: 'DownloadsAnswer',
})

/** `POST /v1/session/files`: the name it was saved under (deduplicated) and its size. */
export const StagedFile = Schema.Struct({ name: Schema.String, size: Schema.Number }).annotations({
  identifier: 'StagedFile',
})

/** `POST /v1/session/files?name=…`. */
export const StageQuery = Schema.Struct({ name: FileName })

/** The downloads' bytes and their media type (`GET /v1/session/downloads/:name`). */
export const DownloadBytes = Schema.Struct({ bytes: Schema.Uint8ArrayFromSelf, type: Schema.String })
