/**
 * The memory runtime's files capability (`files.ts`), faked: each context's folder is a map of
 * names to bytes, with the same name rules as a real folder. A test makes a page "download" a
 * file with `download`; a staged file is also put where the fake uploads look (`putFile`).
 *
 * @example
 * memory.files.download(id, 'report.pdf', bytes, 'http://127.0.0.1:3000/report.pdf?x=1')
 * const list = Effect.runSync(memory.files.list(id)) // [{ name: 'report.pdf', origin: 'download', … }]
 */
import { Effect } from 'effect'
import { RuntimeError } from './errors.ts'
import {
  dedupeName,
  mediaTypeOf,
  sanitiseFileName,
  sourceOf,
  type ErrandFile,
  type FileVerbs,
  type PackedFile,
  type PackedFolder,
  fitting,
} from './files.ts'
import { isPlainFileName } from './pages.ts'
import type { ContextError } from './Runtime.ts'
import type { ContextId } from './types.ts'

interface Held {
  readonly file: ErrandFile
  readonly bytes: Uint8Array
}

/** The fake folders of a memory runtime. */
export class MemoryFiles implements FileVerbs {
  private readonly folders = new Map<ContextId, Map<string, Held>>()
  private readonly errandOf = new Map<ContextId, string>()
  /** Crashed contexts' folders, per errand, until a heal claims them or they are dropped (K3). */
  private readonly aside = new Map<string, Array<Map<string, Held>>>()

  /**
   * @param known fails with ContextNotFound for a context that is not open (or is the main one)
   * @param putFile tells the fake page verbs a file is there for an upload
   */
  constructor(
    private readonly known: (contextId: ContextId) => Effect.Effect<void, ContextError>,
    private readonly putFile: (contextId: ContextId, name: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  readonly list = (contextId: ContextId) =>
    Effect.map(this.known(contextId), () => [...(this.folders.get(contextId)?.values() ?? [])].map((h) => h.file))

  readonly read = (contextId: ContextId, name: string) =>
    Effect.map(this.known(contextId), () =>
      isPlainFileName(name) ? this.folders.get(contextId)?.get(name)?.bytes.slice() : undefined,
    )

  readonly stage = (contextId: ContextId, name: string, bytes: Uint8Array) =>
    Effect.flatMap(this.known(contextId), () =>
      isPlainFileName(name)
        ? Effect.succeed(this.save(contextId, name, bytes, null))
        : Effect.fail(
            new RuntimeError({
              reason: 'invalid',
              message: `${JSON.stringify(name.slice(0, 300))} is not a plain file name`,
            }),
          ),
    )

  readonly pack = (contextId: ContextId, maxBytes: number) =>
    Effect.map(this.known(contextId), (): PackedFolder => {
      const { fit, left } = fitting(
        [...(this.folders.get(contextId)?.values() ?? [])].map((h) => ({ ...h.file, bytes: h.bytes })),
        maxBytes,
      )
      return { files: fit.map((f): PackedFile => ({ ...f, bytes: f.bytes.slice() })), left }
    })

  readonly unpack = (contextId: ContextId, files: ReadonlyArray<PackedFile>) =>
    Effect.map(this.known(contextId), () => {
      for (const f of files) {
        if (!isPlainFileName(f.name)) continue
        const saved = this.save(contextId, f.name, f.bytes, f.source, f.origin)
        this.folders.get(contextId)!.set(saved.name, { file: { ...saved, at: f.at }, bytes: f.bytes.slice() })
      }
    })

  readonly claimAside = (errandId: string, contextId: ContextId) =>
    Effect.map(this.known(contextId), () => {
      let moved = 0
      for (const folder of this.aside.get(errandId) ?? []) {
        for (const h of folder.values()) {
          const saved = this.save(contextId, h.file.name, h.bytes, h.file.source, h.file.origin)
          this.folders.get(contextId)!.set(saved.name, { file: { ...saved, at: h.file.at }, bytes: h.bytes })
          moved++
        }
      }
      this.aside.delete(errandId)
      return moved
    })

  readonly packAside = (errandId: string, maxBytes: number) =>
    Effect.sync((): PackedFolder => {
      const { fit, left } = fitting(
        (this.aside.get(errandId) ?? []).flatMap((folder) =>
          [...folder.values()].map((h) => ({ ...h.file, bytes: h.bytes })),
        ),
        maxBytes,
      )
      return { files: fit.map((f): PackedFile => ({ ...f, bytes: f.bytes.slice() })), left }
    })

  readonly dropAside = (errandId: string) => Effect.sync(() => void this.aside.delete(errandId))

  /**
   * Which errand a context is of (its folder is set aside for it when it crashes). @example files.belongsTo('ctx-1',
   * 'e1')
   */
  belongsTo(contextId: ContextId, errandId: string): void {
    this.errandOf.set(contextId, errandId)
  }

  /**
   * A crashed context's folder is kept for its errand's heal (call before `forget`). @example files.setAside('ctx-1')
   */
  setAside(contextId: ContextId): void {
    const folder = this.folders.get(contextId)
    const errandId = this.errandOf.get(contextId)
    if (folder === undefined || folder.size === 0 || errandId === undefined) return
    this.aside.set(errandId, [...(this.aside.get(errandId) ?? []), folder])
    this.folders.delete(contextId)
  }

  /**
   * How many folders are set aside (for all errands, or one): what a test sees left behind. @example
   * files.asideCount('e1')
   */
  asideCount(errandId?: string): number {
    return errandId === undefined
      ? [...this.aside.values()].reduce((n, f) => n + f.length, 0)
      : (this.aside.get(errandId)?.length ?? 0)
  }

  /**
   * A page of the context downloads a file (a test's stand-in for the browser's download). @example
   * memory.files.download(id, 'a.pdf', bytes, url)
   */
  download(contextId: ContextId, suggested: string, bytes: Uint8Array, url: string): ErrandFile {
    return this.save(contextId, suggested, bytes, sourceOf(url))
  }

  /** Drops the folders `which` accepts (with their contexts). @example files.forget((id) => id === 'c1') */
  forget(which: (contextId: ContextId) => boolean): void {
    for (const id of [...this.folders.keys()]) if (which(id)) this.folders.delete(id)
    for (const id of [...this.errandOf.keys()]) if (which(id)) this.errandOf.delete(id)
  }

  private save(
    contextId: ContextId,
    suggested: string,
    bytes: Uint8Array,
    source: string | null,
    origin: ErrandFile['origin'] = source === null ? 'staged' : 'download',
  ): ErrandFile {
    const folder = this.folders.get(contextId) ?? new Map<string, Held>()
    this.folders.set(contextId, folder)
    const name = dedupeName(sanitiseFileName(suggested), (n) => folder.has(n))
    const file: ErrandFile = { name, size: bytes.byteLength, type: mediaTypeOf(name), at: this.now(), source, origin }
    folder.set(name, { file, bytes: bytes.slice() })
    this.putFile(contextId, name)
    return file
  }
}
