/**
 * The files capability of a Chromium runtime (issue #25, F1–F3): a page's download is saved into
 * its errand's own files folder (`errandFiles.ts`) under its suggested name, made plain and
 * deduplicated (`report (1).pdf`), and clients list, read and stage files there. A download never
 * ends a session: it is a file of the context, not a navigation of the tab, and a failed one is
 * logged and forgotten (Playwright MCP issue #1768, where a download closed the page's session).
 *
 * The person's main context has no folder: its downloads are cancelled. A download that would pass
 * the folder's caps (`FilesCaps`: one file, the whole folder) is deleted and never listed; the
 * session goes on. Its bytes sit in Playwright's artifacts folder (our TMPDIR) until it finishes:
 * Chromium does not say a download's size in advance.
 *
 * `pack` and `unpack` carry the folder across a park (F3): the supervisor seals what `pack` read
 * with the errand's record, and `unpack` writes it into the resumed context's new folder.
 * `claimAside` carries it across a crash (K3): the crashed context's folder, set aside, has its
 * files moved (renamed, never copied) into the healed context's folder.
 *
 * @example
 * const downloads = new Downloads(errandFiles, (id) => runtime.filesDir(id), 30_000, log)
 * downloads.watch(contextId, page) // when the page becomes a tab
 * yield* downloads.verbs.list(contextId)
 */
import { existsSync } from 'node:fs'
import { copyFile, lstat, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import {
  dedupeName,
  fitting,
  isPlainFileName,
  mediaTypeOf,
  overCap,
  RuntimeError,
  sanitiseFileName,
  sourceOf,
  type ContextError,
  type ContextId,
  type ErrandFile,
  type FilesCaps,
  type FileVerbs,
  type PackedFile,
  type PackedFolder,
} from '@errands/runtime'
import { Effect, Either } from 'effect'
import type { Download, Page } from 'playwright-core'
import type { WitnessedDownload } from './downloadWitness.ts'
import type { AsideFolder, ErrandFiles } from './errandFiles.ts'
import { call } from './failures.ts'

/** A context's files folder, or why it has none (the main context, a remote browser, gone). */
export type FilesDirOf = (contextId: ContextId) => Effect.Effect<string, ContextError>

/** How long a DevTools client's wait for a download's saved file may last (docs/devtools-endpoint.md). */
const SAVED_WAIT_MS = 60_000

/** A download's saved file by Chromium's guid: waited for by the DevTools proxy, settled by `save`. */
interface Saved {
  readonly done: Promise<string | undefined>
  readonly settle: (path: string | undefined) => void
}

/** A finished download's file and how to keep it: Playwright's `Download`, or the witness's artifact. */
interface Finished {
  readonly path: string
  readonly name: string
  readonly url: string
  readonly copy: (to: string) => Promise<void>
  readonly drop: () => Promise<void>
}

const firstLine = (error: unknown): string => (error instanceof Error ? error.message.split('\n')[0]! : String(error))

/** The downloads and file verbs of one runtime's errand folders. */
export class Downloads {
  /** Downloads by Chromium's guid (the name Playwright's artifact has), until a client asked or a minute passed. */
  private readonly saved = new Map<string, Saved>()
  /** By guid, downloads being saved: Playwright's report and the witness each claim one; the first keeps it. */
  private readonly claimed = new Set<string>()

  constructor(
    private readonly files: ErrandFiles,
    private readonly dirOf: FilesDirOf,
    private readonly deadlineMs: number,
    private readonly log: (line: string) => void,
    private readonly caps: FilesCaps | undefined,
  ) {}

  /** Saves every download of `page` into its context's folder. @example downloads.watch(id, page) */
  watch(contextId: ContextId, page: Page): void {
    page.on('download', (download) => void this.save(contextId, download))
  }

  /**
   * The errand file the download `guid` was saved as, once saved; undefined when it was not kept
   * (caps, failure) or nothing was heard of it within a minute. `DevToolsTarget.download`.
   *
   * @example
   * const path = await downloads.savedAs('85c5fa45-…') // '/tmp/errands-files-x/ab12/report.pdf'
   */
  savedAs(guid: string): Promise<string | undefined> {
    return this.entry(guid).done
  }

  private entry(guid: string): Saved {
    let entry = this.saved.get(guid)
    if (entry === undefined) {
      let settle!: (path: string | undefined) => void
      const done = new Promise<string | undefined>((resolve) => {
        settle = resolve
      })
      const timer = setTimeout(() => settle(undefined), SAVED_WAIT_MS)
      timer.unref()
      void done.then(() => {
        clearTimeout(timer)
        // Kept a while for a client that asks after it was saved, then forgotten.
        setTimeout(() => this.saved.delete(guid), SAVED_WAIT_MS).unref()
      })
      entry = { done, settle }
      this.saved.set(guid, entry)
    }
    return entry
  }

  /** The capability of the runtime contract (`FileVerbs`). */
  readonly verbs: FileVerbs = {
    list: (id) => Effect.map(this.dirOf(id), () => this.files.filesOf(id)),
    read: (id, name) =>
      Effect.flatMap(this.dirOf(id), (dir) =>
        call('read file', this.deadlineMs, async () => {
          if (!isPlainFileName(name)) return undefined
          const path = join(dir, name)
          // A regular file of the folder only: never a link out of it.
          const info = await lstat(path).catch(() => undefined)
          return info?.isFile() ? new Uint8Array(await readFile(path)) : undefined
        }),
      ),
    stage: (id, name, bytes) =>
      Effect.flatMap(this.dirOf(id), (dir) =>
        isPlainFileName(name)
          ? call('stage file', this.deadlineMs, () =>
              this.write(id, dir, name, null, async (path) => writeFile(path, bytes, { flag: 'wx', mode: 0o600 })),
            )
          : Effect.fail(
              new RuntimeError({
                reason: 'invalid',
                message:
                  `${JSON.stringify(name.slice(0, 300))} is not a plain file name (no path separators, no . ` +
                  `or ..)`,
              }),
            ),
      ),
    pack: (id, maxBytes) =>
      // An errand that never had a folder has nothing to pack; asking for one would make one.
      !this.files.has(id)
        ? Effect.succeed({ files: [], left: [] })
        : Effect.flatMap(this.dirOf(id), (dir) =>
            this.packed('pack files', [{ dir, files: this.files.filesOf(id) }], maxBytes),
          ),
    packAside: (errandId, maxBytes) => this.packed('pack files set aside', this.files.asideOf(errandId), maxBytes),
    unpack: (id, packed) =>
      Effect.flatMap(this.dirOf(id), (dir) =>
        call('unpack files', this.deadlineMs, async () => {
          for (const file of packed) {
            if (!isPlainFileName(file.name)) continue
            const saved = await this.write(
              id,
              dir,
              file.name,
              file.source,
              (path) => writeFile(path, file.bytes, { flag: 'wx', mode: 0o600 }),
              file.origin,
            )
            const kept: ErrandFile = { ...saved, at: file.at }
            await utimes(join(dir, saved.name), new Date(file.at), new Date(file.at)).catch(() => undefined)
            this.files.settle(id, saved.name, kept)
          }
        }),
      ),
    claimAside: (errandId, id) =>
      // Nothing set aside (every heal asks): no folder is made for the healed context.
      this.files.asideOf(errandId).length === 0
        ? Effect.succeed(0)
        : Effect.flatMap(this.dirOf(id), (dir) =>
            call('claim files', this.deadlineMs, async () => {
              let moved = 0
              for (const aside of this.files.takeAside(errandId)) {
                for (const file of aside.files) {
                  // Same temp root, so a rename: the bytes never exist twice, nor leave the root. A
                  // file that cannot move (gone from the folder) is skipped; the rest still move.
                  const saved = await this.write(
                    id,
                    dir,
                    file.name,
                    file.source,
                    (path) => rename(join(aside.dir, file.name), path),
                    file.origin,
                  ).catch(() => undefined)
                  if (saved === undefined) continue
                  this.files.settle(id, saved.name, { ...saved, at: file.at })
                  moved++
                }
                await rm(aside.dir, { recursive: true, force: true })
              }
              return moved
            }),
          ),
    dropAside: (errandId) => Effect.sync(() => this.files.dropAside(errandId)),
  }

  /** What of `folders`' files (oldest folder first) fits `maxBytes`, with their bytes. */
  private packed(
    what: string,
    folders: ReadonlyArray<AsideFolder>,
    maxBytes: number,
  ): Effect.Effect<PackedFolder, RuntimeError> {
    return call(what, this.deadlineMs, async () => {
      const { fit, left } = fitting(
        folders.flatMap(({ dir, files }) => files.map((file) => ({ ...file, dir }))),
        maxBytes,
      )
      const files: PackedFile[] = []
      for (const { dir, ...file } of fit) {
        const bytes = await readFile(join(dir, file.name)).catch(() => undefined)
        if (bytes !== undefined) files.push({ ...file, size: bytes.byteLength, bytes: new Uint8Array(bytes) })
      }
      return { files, left }
    })
  }

  /**
   * A download Chromium finished (downloadWitness.ts): saved here when Playwright did not report it
   * (a page it had not taken in yet), and only in a context of this runtime with a folder —
   * `contextOf` answers which. Whichever of the two hears of a download's end first saves it.
   *
   * @example
   * await witnessDownloads(browser, artifactsDir, (d) => downloads.witnessed(d, contextOfBrowserContext))
   */
  async witnessed(
    download: WitnessedDownload,
    contextOf: (browserContextId: string) => Promise<ContextId | undefined>,
  ): Promise<void> {
    if (download.state !== 'completed' || download.browserContextId === undefined) return
    // Playwright's report came first (the usual case): nothing to look up.
    if (this.claimed.has(download.guid)) return
    const contextId = await contextOf(download.browserContextId)
    if (contextId === undefined || !this.claim(download.guid)) return
    const dir = await Effect.runPromise(Effect.either(this.dirOf(contextId)))
    if (Either.isLeft(dir)) return void (await rm(download.path, { force: true }))
    await this.keep(contextId, dir.right, download.guid, {
      path: download.path,
      name: download.suggestedFilename,
      url: download.url,
      copy: (to) => copyFile(download.path, to),
      drop: () => rm(download.path, { force: true }),
    })
  }

  /** The first to hear of a download's end saves it; the other leaves it be. */
  private claim(guid: string): boolean {
    if (this.claimed.has(guid)) return false
    this.claimed.add(guid)
    setTimeout(() => this.claimed.delete(guid), SAVED_WAIT_MS).unref()
    return true
  }

  private async save(contextId: ContextId, download: Download): Promise<void> {
    const dir = await Effect.runPromise(Effect.either(this.dirOf(contextId)))
    if (Either.isLeft(dir)) {
      await download.cancel().catch(() => undefined)
      return
    }
    let done: string
    try {
      // Finished (in Playwright's artifacts folder) before it is judged: its size is known only then.
      done = await download.path()
    } catch (error) {
      return this.log(`download in context ${contextId} failed: ${firstLine(error)}`)
    }
    // Playwright's artifact is named by Chromium's guid, which a DevTools client's events carry.
    const guid = basename(done)
    // The witness saved it already (and removes the artifact itself).
    if (!this.claim(guid)) return
    await this.keep(contextId, dir.right, guid, {
      path: done,
      name: download.suggestedFilename(),
      url: download.url(),
      copy: (to) => download.saveAs(to),
      drop: () => download.delete().catch(() => undefined),
    })
  }

  /** Keeps a finished download's file in the errand's folder, within its caps; settles its guid either way. */
  private async keep(contextId: ContextId, dir: string, guid: string, finished: Finished): Promise<void> {
    try {
      const over = overCap(this.caps, this.files.heldBytes(contextId), (await stat(finished.path)).size)
      if (over !== undefined) {
        const cap =
          over === 'file'
            ? 'file cap (ERRANDS_FILES_MAX_FILE_BYTES)'
            : "errand's folder cap (ERRANDS_FILES_MAX_ERRAND_BYTES)"
        // Said before a waiting client hears of it (the settle), so the log never lags the answer.
        this.log(`download in context ${contextId} refused: over the ${cap}; deleted, not listed`)
        this.entry(guid).settle(undefined)
        await finished.drop()
        return
      }
      const file = await this.write(
        contextId,
        dir,
        finished.name,
        sourceOf(finished.url),
        finished.copy,
        'download',
        true,
      )
      this.entry(guid).settle(join(dir, file.name))
      await finished.drop()
      this.log(`download saved in context ${contextId}: ${file.name} (${file.size} bytes)`)
    } catch (error) {
      this.entry(guid).settle(undefined)
      this.log(`download in context ${contextId} failed: ${firstLine(error)}`)
    }
  }

  /**
   * Writes a file under a free plain name (held while it is written), then records it. With
   * `capped`, a file that no longer fits the caps once written (another download finished
   * meanwhile) is removed and fails.
   */
  private async write(
    contextId: ContextId,
    dir: string,
    suggested: string,
    source: string | null,
    put: (path: string) => Promise<void>,
    origin: ErrandFile['origin'] = source === null ? 'staged' : 'download',
    capped = false,
  ): Promise<ErrandFile> {
    const name = dedupeName(
      sanitiseFileName(suggested),
      (n) => this.files.taken(contextId, n) || existsSync(join(dir, n)),
    )
    this.files.reserve(contextId, name)
    try {
      await put(join(dir, name))
      const { size } = await stat(join(dir, name))
      if (capped && overCap(this.caps, this.files.heldBytes(contextId), size) !== undefined) {
        await rm(join(dir, name), { force: true })
        throw new Error('over the files caps once written; deleted, not listed')
      }
      const file: ErrandFile = { name, size, type: mediaTypeOf(name), at: Date.now(), source, origin }
      this.files.settle(contextId, name, file)
      return file
    } catch (error) {
      this.files.settle(contextId, name, undefined)
      throw error
    }
  }
}
