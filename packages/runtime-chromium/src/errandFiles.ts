/**
 * One folder of its own per errand for the files a client may name (A1, #27; F1 of the file
 * verbs): uploads it staged, downloads it made. A DevTools client may name no other path of the
 * engine's machine (`@errands/devtools` checks every one with `realpath` against this folder),
 * and the HTTP/MCP file verbs use the same folder.
 *
 * The folders live under one `errands-files-*` folder of the OS temp dir (mode 0700) — never
 * under the data dir, never inside a Chromium's TMPDIR (Playwright's artifacts and profiles are
 * there) — each named with 128 random bits. A folder is removed with its context (closed,
 * parked, crashed); a parking errand's files are first packed by the supervisor and sealed with its
 * record, then put back into the new folder when it resumes (F3, docs/files.md).
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
import type { ErrandFile } from '@errands/runtime'
import { freshTmpDir } from './tmpDirs.ts'

/** A crashed context's folder kept for its errand's heal: where it is, and its finished files. */
export interface AsideFolder {
  readonly dir: string
  readonly files: ReadonlyArray<ErrandFile>
}

/** The errands' files folders of one runtime. */
export class ErrandFiles {
  private root: string | undefined
  private readonly dirs = new Map<string, string>()
  /**
   * Contexts whose folder was removed, and whether the runtime closed: a late call (a park's
   * `pack`, a download finishing, at shutdown or after a crash) never makes a folder again — it
   * would outlive its context, and after `close` its root too.
   */
  private readonly gone = new Set<string>()
  private closed = false
  /** What is known of each folder's files (downloads and staged ones), and the names being written. */
  private readonly records = new Map<string, Map<string, ErrandFile | 'pending'>>()
  /** Each context's errand, for setting its folder aside when it crashes. */
  private readonly errandOf = new Map<string, string>()
  /** Crashed contexts' folders, per errand, until its heal claims them or they are dropped. */
  private readonly aside = new Map<string, Array<AsideFolder>>()

  /** @param owner the engine's data dir, written in the root's marker (none: an unmarked root) */
  constructor(private readonly owner?: string) {}

  /**
   * Says which errand a context is of (its folder is set aside for it on a crash). @example files.belongsTo(id,
   * 'task-1')
   */
  belongsTo(contextId: string, errandId: string): void {
    this.errandOf.set(contextId, errandId)
  }

  /** The folder's known files, oldest first. @example files.filesOf(id) */
  filesOf(contextId: string): ReadonlyArray<ErrandFile> {
    return [...(this.records.get(contextId)?.values() ?? [])].filter((f): f is ErrandFile => f !== 'pending')
  }

  /** The bytes the folder's finished files hold (what its caps count). @example files.heldBytes(id) */
  heldBytes(contextId: string): number {
    return this.filesOf(contextId).reduce((sum, f) => sum + f.size, 0)
  }

  /** Whether a name is taken (written, or being written) in the folder. @example files.taken(id, 'a.pdf') */
  taken(contextId: string, name: string): boolean {
    return this.records.get(contextId)?.has(name) ?? false
  }

  /**
   * Holds a name while its file is written (so two downloads of one name never share it). @example files.reserve(id,
   * 'a.pdf')
   */
  reserve(contextId: string, name: string): void {
    const book = this.records.get(contextId) ?? new Map<string, ErrandFile | 'pending'>()
    this.records.set(contextId, book)
    book.set(name, 'pending')
  }

  /**
   * The file is written (or, with undefined, was not: its name is free again). @example files.settle(id, 'a.pdf',
   * file)
   */
  settle(contextId: string, name: string, file: ErrandFile | undefined): void {
    const book = this.records.get(contextId)
    if (book === undefined || !this.dirs.has(contextId)) return // its context went meanwhile
    if (file === undefined) book.delete(name)
    else book.set(name, file)
  }

  /** Whether `contextId` has a folder now (packing one that has none makes none). @example files.has(id) */
  has(contextId: string): boolean {
    return this.dirs.has(contextId)
  }

  /** The folder of `contextId`, made (empty, 0700) on first use. @example files.dirFor(id) */
  dirFor(contextId: string): string {
    let dir = this.dirs.get(contextId)
    if (dir === undefined) {
      if (this.closed || this.gone.has(contextId))
        throw new Error(`the files folder of context ${contextId} is gone with its context`)
      this.root ??=
        this.owner === undefined
          ? mkdtempSync(join(tmpdir(), 'errands-files-'))
          : freshTmpDir(this.owner, 'errands-files-')
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
    this.records.delete(contextId)
    this.gone.add(contextId)
    this.errandOf.delete(contextId)
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }

  /**
   * Keeps the folder of a crashed context aside for its errand (where it is, with its finished
   * files; a download still being written is not kept): the context is forgotten, the folder
   * stays until `takeAside` or `dropAside`. A context of no known errand, or with no files, is
   * dropped.
   *
   * @example
   * files.setAside(entry.id)
   */
  setAside(contextId: string): void {
    const dir = this.dirs.get(contextId)
    const errandId = this.errandOf.get(contextId)
    const files = this.filesOf(contextId)
    if (dir === undefined || errandId === undefined || files.length === 0) return this.drop(contextId)
    this.dirs.delete(contextId)
    this.records.delete(contextId)
    this.errandOf.delete(contextId)
    this.gone.add(contextId)
    this.aside.set(errandId, [...(this.aside.get(errandId) ?? []), { dir, files }])
  }

  /** The folders set aside for an errand, oldest first, still kept here. @example files.asideOf('task-1') */
  asideOf(errandId: string): ReadonlyArray<AsideFolder> {
    return this.aside.get(errandId) ?? []
  }

  /**
   * The folders set aside for an errand, oldest first, no longer kept here (the caller moves their files, then removes
   * them). @example files.takeAside('task-1')
   */
  takeAside(errandId: string): ReadonlyArray<AsideFolder> {
    const folders = this.aside.get(errandId) ?? []
    this.aside.delete(errandId)
    return folders
  }

  /** Removes the folders set aside for an errand (idempotent). @example files.dropAside('task-1') */
  dropAside(errandId: string): void {
    for (const { dir } of this.takeAside(errandId)) rmSync(dir, { recursive: true, force: true })
  }

  /** Removes every folder and the root (at shutdown). @example files.close() */
  close(): void {
    this.closed = true
    this.gone.clear()
    this.dirs.clear()
    this.records.clear()
    this.errandOf.clear()
    this.aside.clear()
    if (this.root !== undefined) rmSync(this.root, { recursive: true, force: true })
    this.root = undefined
  }
}
