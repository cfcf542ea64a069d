/**
 * The paths of the engine's machine a DevTools client may name (A1, #27): only inside the
 * errand's own files folder (`DevToolsTarget.filesDir`, packages/runtime-chromium/src/errandFiles.ts).
 *
 * - **Files a page would receive** (`DOM.setFileInputFiles`, `Page.handleFileChooser`, the
 *   dropped files of `Input.dispatchDragEvent`): each path is resolved with `realpath` and must
 *   be a plain file inside the folder. A directory (Chromium walks it for a `webkitdirectory`
 *   input), a symlink that leads out, a device, a FIFO, a missing file are refused with why.
 *   A bare file name (`note.txt`: no separator, not `.` or `..`) names the file of that name in
 *   the folder — one an agent staged with `POST /v1/session/files?name=` (#25, F2) — and is sent
 *   on as that path; the same checks apply to it.
 * - **Download folders** (`Browser.` / `Page.setDownloadBehavior`): downloads of an errand go to
 *   its folder, whatever the client named. A path that is not the folder is not refused but
 *   replaced: Playwright's `connectOverCDP` names a folder of its own for every context and cannot
 *   connect when that is refused; nothing is ever written elsewhere. `default` (the browser's own
 *   download folder) becomes `allow` into the folder. An errand **without** a folder (a remote
 *   browser's: its disk is not ours to name) gets `deny` instead, events kept: refusing would
 *   break `connectOverCDP`, which sends `Browser.setDownloadBehavior` while it connects.
 *
 * @example
 * refusedUpload(['/etc/passwd'], '/tmp/errands-files-x/ab12') // 'the path … is outside this errand's files folder'
 */
import { lstatSync, realpathSync } from 'node:fs'
import { isAbsolute, join, sep } from 'node:path'

const NO_FOLDER =
  "this errand has no files folder on the engine's machine (a remote browser's files are not ours to name)"

const realOr = (path: string): string | undefined => {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

/**
 * Why `paths` may not be given to a page, or undefined when each is a plain file inside `folder`.
 *
 * @example
 * refusedUpload([`${dir}/a.txt`], dir) // undefined
 */
export const refusedUpload = (paths: unknown, folder: string | undefined): string | undefined => {
  if (folder === undefined) return NO_FOLDER
  const root = realOr(folder)
  if (root === undefined) return NO_FOLDER
  const list = Array.isArray(paths) ? paths : [paths]
  for (const path of list) {
    if (typeof path !== 'string' || !isAbsolute(path))
      return "paths must be absolute, or the bare name of a file of this errand's folder"
    const real = realOr(path)
    if (real === undefined) return `no such file in this errand's files folder (${folder})`
    if (!real.startsWith(root + sep))
      return `only files inside this errand's files folder (${folder}) may be named; that path leads outside it`
    const stat = lstatSync(real)
    if (stat.isDirectory()) return 'a folder may not be named (a page would receive everything in it): name plain files'
    if (!stat.isFile()) return 'only plain files may be named (not a device, socket or FIFO)'
  }
  return undefined
}

const bareName = (path: unknown): path is string =>
  typeof path === 'string' &&
  path !== '' &&
  path !== '.' &&
  path !== '..' &&
  !path.includes('/') &&
  !path.includes('\\') &&
  !path.includes('\0')

/**
 * A command's params with the paths it would give a page (`files`, and `data.files` of a drag)
 * checked — bare names made paths of the errand's folder — or why they are refused.
 *
 * @example
 * uploadParams({ nodeId: 4, files: ['note.txt'] }, dir) // { nodeId: 4, files: [`${dir}/note.txt`] }
 * uploadParams({ nodeId: 4, files: ['/etc/passwd'] }, dir) // 'only files inside this errand's files folder …'
 */
export const uploadParams = (
  params: Record<string, unknown>,
  folder: string | undefined,
): Record<string, unknown> | string => {
  const named = (paths: unknown): unknown => {
    if (folder === undefined) return paths
    const inFolder = (p: unknown) => (bareName(p) ? join(realOr(folder) ?? folder, p) : p)
    return Array.isArray(paths) ? paths.map(inFolder) : inFolder(paths)
  }
  const data = params.data
  const dropped = typeof data === 'object' && data !== null ? (data as { files?: unknown }).files : undefined
  let out = params
  if (params.files !== undefined) {
    const files = named(params.files)
    const why = refusedUpload(files, folder)
    if (why !== undefined) return why
    out = { ...out, files }
  }
  if (dropped !== undefined) {
    const files = named(dropped)
    const why = refusedUpload(files, folder)
    if (why !== undefined) return why
    out = { ...out, data: { ...(data as object), files } }
  }
  return out
}

/**
 * The download params to send: `downloadPath` is always the errand's folder (see the file's doc);
 * with no folder (a remote browser), `deny` whatever was asked, the client's other params
 * (`eventsEnabled`, `browserContextId`) kept.
 *
 * @example
 * downloadParams({ behavior: 'allow', downloadPath: '/etc' }, dir)        // { behavior: 'allow', downloadPath: dir }
 * downloadParams({ behavior: 'allowAndName', downloadPath: '/tmp/pw', eventsEnabled: true }, undefined)
 * // { behavior: 'deny', eventsEnabled: true }
 */
export const downloadParams = (
  params: Record<string, unknown>,
  folder: string | undefined,
): Record<string, unknown> => {
  const { downloadPath: _named, ...rest } = params
  const behavior = params.behavior
  if (behavior === 'deny' || folder === undefined) return { ...rest, behavior: 'deny' }
  return { ...rest, behavior: behavior === 'default' ? 'allow' : behavior, downloadPath: realOr(folder) ?? folder }
}
