/**
 * One folder of its own per errand for the files a client may name (A1, #27; F1 of the file
 * verbs): uploads it staged, downloads it made. A DevTools client may name no other path of the
 * engine's machine (`@errands/devtools` checks every one with `realpath` against this folder),
 * and the HTTP/MCP file verbs use the same folder.
 *
 * The folders live under one `errands-files-*` folder of the OS temp dir (mode 0700) — never
 * under the data dir, never inside a Chromium's TMPDIR (Playwright's artifacts and profiles are
 * there) — each named with 128 random bits. A folder is removed with its context (closed,
 * parked, crashed): what a parked errand downloaded is dropped, not sealed (docs/devtools-endpoint.md).
 *
 * @example
 * const files = new ErrandFiles()
 * const dir = files.dirFor('task-1.1') // '/tmp/errands-files-Xy12/3f9c…'
 * files.drop('task-1.1')
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The errands' files folders of one runtime. */
export class ErrandFiles {
  private root: string | undefined
  private readonly dirs = new Map<string, string>()

  /** The folder of `contextId`, made (empty, 0700) on first use. @example files.dirFor(id) */
  dirFor(contextId: string): string {
    let dir = this.dirs.get(contextId)
    if (dir === undefined) {
      this.root ??= mkdtempSync(join(tmpdir(), 'errands-files-'))
      dir = join(this.root, randomBytes(16).toString('hex'))
      mkdirSync(dir, { mode: 0o700 })
      this.dirs.set(contextId, dir)
    }
    return dir
  }

  /** Removes the folder of `contextId` and everything in it (idempotent). @example files.drop(id) */
  drop(contextId: string): void {
    const dir = this.dirs.get(contextId)
    this.dirs.delete(contextId)
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }

  /** Removes every folder and the root (at shutdown). @example files.close() */
  close(): void {
    this.dirs.clear()
    if (this.root !== undefined) rmSync(this.root, { recursive: true, force: true })
    this.root = undefined
  }
}
