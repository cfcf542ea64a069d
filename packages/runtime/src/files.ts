/**
 * The files capability of the runtime contract (issue #25, "files per errand"): each errand
 * context has a folder of its own (F1–F3) — what its pages downloaded, what a client staged for
 * an upload. A runtime lists it, reads one file's bytes and stages bytes under a name; the names
 * are plain ({@link isPlainFileName}) and never overwrite: a second `report.pdf` is
 * `report (1).pdf` ({@link dedupeName}). The folder goes with its context.
 *
 * @example
 * const files = runtime.files
 * const staged = yield* files.stage(contextId, 'receipt.pdf', bytes) // { name: 'receipt.pdf', … }
 * const list = yield* files.list(contextId)
 */
import type { Effect } from 'effect'
import type { ContextError } from './Runtime.ts'
import type { ContextId } from './types.ts'

/** One file of an errand's folder: how it got there (`download` or `staged`), and from where. */
export interface ErrandFile {
  readonly name: string
  readonly size: number
  /** A media type guessed from the name (`application/octet-stream` when unknown). */
  readonly type: string
  /** When it was saved (ms since the epoch). */
  readonly at: number
  /** A download's URL without its query and fragment; `null` for a staged file. */
  readonly source: string | null
  readonly origin: 'download' | 'staged'
}

/** The files capability, per context. Absent in a runtime without files folders. */
export interface FileVerbs {
  /** Every file of the context's folder, oldest first. */
  readonly list: (contextId: ContextId) => Effect.Effect<ReadonlyArray<ErrandFile>, ContextError>
  /** One file's bytes by plain name; none when there is no such file. */
  readonly read: (contextId: ContextId, name: string) => Effect.Effect<Uint8Array | undefined, ContextError>
  /** Saves bytes under `name` (sanitised, deduplicated); answers the file as saved. */
  readonly stage: (contextId: ContextId, name: string, bytes: Uint8Array) => Effect.Effect<ErrandFile, ContextError>
  /**
   * The finished files of the folder with their bytes, oldest first, for sealing with the errand
   * when it parks (F3): each file that still fits `maxBytes` together with those before it (a
   * file that does not is left out, and later smaller ones may still fit). A download still
   * being written is not in it.
   */
  readonly pack: (contextId: ContextId, maxBytes: number) => Effect.Effect<PackedFolder, ContextError>
  /**
   * Puts packed files back into the folder of a resumed context under their own names (a name
   * that is not plain is skipped; one already taken is deduplicated), keeping `at`, `source` and
   * `origin` (F3).
   */
  readonly unpack: (contextId: ContextId, files: ReadonlyArray<PackedFile>) => Effect.Effect<void, ContextError>
  /**
   * Moves the files of the folders set aside for `errandId` into the folder of `contextId`, its
   * healed context, and removes those folders (K3). A context that crashes (its renderer, or the
   * whole browser) does not take its folder with it: the folder is set aside, under the same
   * temp root, until its errand's heal claims it or {@link dropAside} removes it. Names already
   * taken are deduplicated; `at`, `source` and `origin` are kept. Answers how many files moved
   * (0 when nothing was aside).
   */
  readonly claimAside: (errandId: string, contextId: ContextId) => Effect.Effect<number, ContextError>
  /**
   * The files of the folders set aside for `errandId`, with their bytes, as `pack` reads a live
   * folder (oldest folder first; what fits `maxBytes`): a crashed errand that parks instead of
   * healing (its heals spent, a shutdown) seals them in its record. The folders stay until
   * {@link dropAside}.
   */
  readonly packAside: (errandId: string, maxBytes: number) => Effect.Effect<PackedFolder, ContextError>
  /** Removes the folders set aside for `errandId` (its errand ended, parked or gave up healing); idempotent. */
  readonly dropAside: (errandId: string) => Effect.Effect<void>
}

/** What `pack` read: the files that fit, and the names of those left out for want of room. */
export interface PackedFolder {
  readonly files: ReadonlyArray<PackedFile>
  readonly left: ReadonlyArray<string>
}

/**
 * Which of a folder's files (oldest first) fit `maxBytes` together, in order; the rest are left.
 *
 * @example
 * fitting([{ name: 'a', size: 5 }, { name: 'b', size: 9 }, { name: 'c', size: 1 }], 7) // { fit: [a, c], left: ['b'] }
 */
export const fitting = <F extends { readonly name: string; readonly size: number }>(
  files: ReadonlyArray<F>,
  maxBytes: number,
): { readonly fit: ReadonlyArray<F>; readonly left: ReadonlyArray<string> } => {
  const fit: F[] = []
  const left: string[] = []
  let used = 0
  for (const f of files) {
    if (used + f.size <= maxBytes) {
      fit.push(f)
      used += f.size
    } else left.push(f.name)
  }
  return { fit, left }
}

/** A file of the folder with its bytes: what parks (sealed) with its errand and comes back with it (F3). */
export interface PackedFile extends ErrandFile {
  readonly bytes: Uint8Array
}

/**
 * The caps of an errand's folder (`ERRANDS_FILES_MAX_FILE_BYTES`, `…_MAX_ERRAND_BYTES`): a download
 * that would pass either is deleted and never listed, as a staged file over them is refused.
 *
 * @example
 * const caps: FilesCaps = { maxFileBytes: 25 * 1024 * 1024, maxErrandBytes: 100 * 1024 * 1024 }
 */
export interface FilesCaps {
  readonly maxFileBytes: number
  readonly maxErrandBytes: number
}

/**
 * Why a download of `size` bytes does not fit a folder that holds `held` bytes, or undefined when it does.
 *
 * @example
 * overCap({ maxFileBytes: 10, maxErrandBytes: 20 }, 15, 11) // 'file'
 */
export const overCap = (caps: FilesCaps | undefined, held: number, size: number): 'file' | 'errand' | undefined =>
  caps === undefined
    ? undefined
    : size > caps.maxFileBytes
      ? 'file'
      : held + size > caps.maxErrandBytes
        ? 'errand'
        : undefined

/**
 * A name a page or a client suggested, made plain: path separators, NUL and control characters
 * become `_`, leading dots are dropped (no hidden files, no `..`), cut at 200 characters keeping
 * the extension; `download` when nothing is left.
 *
 * @example
 * sanitiseFileName('../../etc/passwd') // 'etc_passwd'
 * sanitiseFileName('a/b\\c.pdf')        // 'a_b_c.pdf'
 */
export const sanitiseFileName = (suggested: string): string => {
  // eslint-disable-next-line no-control-regex
  let name = suggested
    .replace(/[/\\\0-\x1f\x7f]/g, '_')
    .replace(/^[.\s_]+/, '')
    .trim()
  if (name.length > 200) {
    const dot = name.lastIndexOf('.')
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : ''
    name = name.slice(0, 200 - ext.length) + ext
  }
  return name === '' || name === '.' || name === '..' ? 'download' : name
}

/**
 * The first of `name`, `name (1).ext`, `name (2).ext` … that `taken` does not hold.
 *
 * @example
 * dedupeName('a.pdf', (n) => n === 'a.pdf') // 'a (1).pdf'
 */
export const dedupeName = (name: string, taken: (name: string) => boolean): string => {
  if (!taken(name)) return name
  const dot = name.lastIndexOf('.')
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, '']
  for (let i = 1; ; i++) {
    const candidate = `${stem} (${i})${ext}`
    if (!taken(candidate)) return candidate
  }
}

const TYPES: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  htm: 'text/html',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  zip: 'application/zip',
  xml: 'application/xml',
  md: 'text/markdown',
  ics: 'text/calendar',
}

/** A media type for a file name, by its extension. @example mediaTypeOf('a.pdf') // 'application/pdf' */
export const mediaTypeOf = (name: string): string =>
  TYPES[name.slice(name.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream'

/**
 * A URL without its query and fragment (a download's `source`). @example sourceOf('https://a.example/f.pdf?t=1') //
 * 'https://a.example/f.pdf'
 */
export const sourceOf = (url: string): string => {
  try {
    const u = new URL(url)
    return `${u.origin === 'null' ? `${u.protocol}` : u.origin}${u.pathname}`
  } catch {
    return url.split(/[?#]/)[0] ?? ''
  }
}

/**
 * File verbs that each go to the runtime `pick` names for their context; the folders set aside
 * for an errand are dropped in `aside`, the runtime that keeps them (its contexts' folders are local).
 *
 * @example
 * files: routeFiles((id) => (remote?.owns(id) ? remote.files : local.files), local.files)
 */
export const routeFiles = (pick: (contextId: ContextId) => FileVerbs, aside: FileVerbs): FileVerbs => ({
  list: (id) => pick(id).list(id),
  read: (id, name) => pick(id).read(id, name),
  stage: (id, name, bytes) => pick(id).stage(id, name, bytes),
  pack: (id, maxBytes) => pick(id).pack(id, maxBytes),
  unpack: (id, files) => pick(id).unpack(id, files),
  claimAside: (errandId, id) => pick(id).claimAside(errandId, id),
  packAside: (errandId, maxBytes) => aside.packAside(errandId, maxBytes),
  dropAside: (errandId) => aside.dropAside(errandId),
})
