/**
 * The files an errand may upload: only those in its own folder, `<uploads>/<errand folder>/`
 * (the host's is `<ERRANDS_DATA_DIR>/uploads`). Playwright MCP reads any path the client names
 * (inside its workspace roots); here the client names a file of the errand's folder — by its
 * name, or by an absolute path inside the folder — and anything else is an {@link UploadRefused}:
 * a path outside, `..`, a symbolic link that leads out, a directory, a file that is not there.
 * So an MCP client cannot make the server read other files of the host.
 *
 * @example
 * const dir = errandFolder('/data/uploads', 'task-42')  // '/data/uploads/task-42'
 * const files = await allowedFiles('/data/uploads', 'task-42', ['report.pdf'])
 */
import { realpath, stat } from 'node:fs/promises'
import { isAbsolute, join, relative, sep } from 'node:path'
import { UploadRefused } from './errors.ts'

/**
 * The folder of an errand's uploadable files. The key's characters outside `A–Z a–z 0–9 . _ - :`
 * become `_`, and a leading dot is escaped, so no key names another folder.
 *
 * @example
 * errandFolder('/data/uploads', 'mcp~5f…') // '/data/uploads/mcp_5f…'
 */
export const errandFolder = (root: string, key: string): string => join(root, key.replace(/[^A-Za-z0-9._:-]/g, '_').replace(/^\./, '_'))

/**
 * The real paths of `names`, each checked to be a file inside the errand's folder.
 *
 * @example
 * await allowedFiles(root, key, ['a.txt', `${errandFolder(root, key)}/b.txt`])
 */
export const allowedFiles = async (root: string | undefined, key: string, names: ReadonlyArray<string>): Promise<ReadonlyArray<string> | UploadRefused> => {
  if (root === undefined) {
    return new UploadRefused({ reason: 'no-folder', message: 'This server has no uploads folder, so it uploads no files; the page gets none.' })
  }
  const folder = errandFolder(root, key)
  const real = await realpath(folder).catch(() => undefined)
  if (real === undefined) {
    return new UploadRefused({ reason: 'not-a-file', message: `This errand's uploads folder (${folder}) does not exist yet: put the files there first, then name them.` })
  }
  const files: Array<string> = []
  for (const name of names) {
    const asked = isAbsolute(name) ? name : join(folder, name)
    const resolved = await realpath(asked).catch(() => undefined)
    const inside = resolved !== undefined && (() => {
      const r = relative(real, resolved)
      return r !== '' && !r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r)
    })()
    if (!inside) {
      return resolved === undefined && !relative(folder, asked).startsWith('..')
        ? new UploadRefused({ reason: 'not-a-file', message: `${JSON.stringify(name.slice(0, 200))} is not in this errand's uploads folder (${folder}); put it there, then name it.` })
        : new UploadRefused({ reason: 'outside-folder', message: `${JSON.stringify(name.slice(0, 200))} is outside this errand's uploads folder (${folder}): only files in that folder can be uploaded.` })
    }
    if (!(await stat(resolved).then((s) => s.isFile(), () => false))) {
      return new UploadRefused({ reason: 'not-a-file', message: `${JSON.stringify(name.slice(0, 200))} is not a file.` })
    }
    files.push(resolved)
  }
  return files
}
