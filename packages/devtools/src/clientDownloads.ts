/**
 * A client's download behaviour is its view, not the errand's (A1, F1–F2; docs/devtools-endpoint.md).
 *
 * Chromium keeps one download behaviour per browser context, and the engine's own Playwright set
 * the errand's (its artifacts folder, then the errand's files folder, listed by the host). A
 * client's `Browser.setDownloadBehavior` / `Page.setDownloadBehavior` — Playwright's
 * `connectOverCDP` sends one for every context, Puppeteer's `downloadBehavior` and Stagehand 3 too —
 * forwarded, replaced the engine's: the host lost the file, and when the client's session
 * detached Chromium reset the context to its default, cancelling every later download of the
 * errand. So it is never forwarded while the errand has a folder: this connection remembers it
 * per context and answers `{}`; the engine keeps saving every download (and holding it to the
 * folder's caps, F2), and the client gets its own copy:
 *
 * - events: a view whose client asked for them (`eventsEnabled`) enables Chromium's download
 *   events on its own channel with a behaviour for the browser's default context, which no errand
 *   uses (`deny`), so the errand's own behaviour is never touched;
 * - the file: a download's `completed` progress (Browser's or Page's) is held until the engine has
 *   saved it (`DevToolsTarget.download`), then a copy is put where the client's behaviour names
 *   it — `<downloadPath>/<guid>` for `allowAndName` (what Playwright's `saveAs` copies from),
 *   `<downloadPath>/<name>` for `allow` — and the event goes on; a download the engine did not keep
 *   (over a cap, failed) reaches the client as `canceled`, as does every one under `deny`;
 * - the folder: the endpoint writes only into a folder a client of this machine made for itself
 *   (`deliverable`): a real directory (no symlink on the way) under the host's temp dir, owned by
 *   the host's user, writable by no one else, outside the errands' files root; the copy never
 *   replaces a file. Any other folder (a client on another machine, a path it does not own) gets
 *   no copy: the file is the errand's, in its folder, listed by the host.
 *
 * @example
 * const downloads = new ClientDownloads(options)
 * downloads.set(browserContextId, { behavior: 'allowAndName', downloadPath: '/tmp/playwright-artifacts-x' })
 * downloads.began(guid, browserContextId)
 * const params = await downloads.finished({ guid, state: 'completed' }) // the copy is in place
 */
import { constants } from 'node:fs'
import { copyFile, lstat, realpath, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, extname, isAbsolute, join, resolve, sep } from 'node:path'
import type { Params, ProxyOptions } from './connection.ts'

/** Chromium's download guids (a UUID). */
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** What a client asked for one context. */
interface Behaviour {
  readonly behavior: string
  readonly downloadPath: string | undefined
}

/**
 * Whether the endpoint may put a client's copy into `folder` (see the file's doc): undefined when
 * it may, else why not.
 *
 * @example
 * await deliverable('/tmp/playwright-artifacts-ab12', '/tmp/errands-files-x/cd34') // undefined
 * await deliverable('/home/me/.ssh', dir) // 'not under the host's temp dir …'
 */
export const deliverable = async (folder: unknown, filesDir: string | undefined): Promise<string | undefined> => {
  if (typeof folder !== 'string' || !isAbsolute(folder)) return 'not an absolute path'
  const real = await realpath(folder).catch(() => undefined)
  if (real === undefined) return 'no such folder on the engine’s machine'
  if (real !== resolve(folder)) return 'a symlink on the way'
  const tmp = await realpath(tmpdir())
  if (!real.startsWith(tmp + sep)) return `not under the host's temp dir (${tmp})`
  if (filesDir !== undefined) {
    const root = dirname(await realpath(filesDir).catch(() => filesDir))
    if (real === root || real.startsWith(root + sep)) return "inside the errands' files root"
  }
  const info = await lstat(real)
  if (!info.isDirectory()) return 'not a directory'
  if (typeof process.getuid === 'function' && info.uid !== process.getuid()) return "not owned by the host's user"
  if ((info.mode & 0o022) !== 0) return 'writable by other users'
  return undefined
}

/** `name` in `folder`, or `name (1)`, `name (2)` … when taken: Chromium's own way for `allow`. */
const freeName = async (folder: string, name: string): Promise<string> => {
  const ext = extname(name)
  const stem = name.slice(0, name.length - ext.length)
  for (let n = 0; n < 100; n++) {
    const candidate = n === 0 ? name : `${stem} (${n})${ext}`
    if ((await stat(join(folder, candidate)).catch(() => undefined)) === undefined) return candidate
  }
  throw new Error('no free name')
}

/**
 * One connection's download behaviours, by the browser's context id, and its downloads in flight.
 *
 * @example
 * const downloads = new ClientDownloads(options)
 */
export class ClientDownloads {
  private readonly behaviours = new Map<string, Behaviour>()
  private readonly contexts = new Map<string, string>()
  private readonly refusedFolders = new Set<string>()
  /** Finishing downloads by guid: each copied once, whichever event (Browser's, Page's) asks first. */
  private readonly finishing = new Map<string, Promise<string>>()

  constructor(private readonly options: Pick<ProxyOptions, 'filesDir' | 'download' | 'log' | 'name'>) {}

  /** Whether downloads are emulated here (the errand has a folder the engine saves into). */
  get emulated(): boolean {
    return this.options.filesDir !== undefined && this.options.download !== undefined
  }

  /** The client's behaviour for `browserContextId`. @example downloads.set(id, { behavior: 'deny' }) */
  set(browserContextId: string, params: Params): void {
    const behavior = typeof params.behavior === 'string' ? params.behavior : 'default'
    const downloadPath = typeof params.downloadPath === 'string' ? params.downloadPath : undefined
    this.behaviours.set(browserContextId, { behavior, downloadPath })
  }

  /** A download of the errand began in `browserContextId`. @example downloads.began(guid, id) */
  began(guid: string, browserContextId: string | undefined): void {
    if (browserContextId !== undefined) this.contexts.set(guid, browserContextId)
  }

  /**
   * A download's progress as the client gets it: a `completed` waits for the client's copy (or
   * becomes `canceled` when there is none to give under `allow`/`allowAndName`, or under `deny`).
   *
   * @example
   * toClient(await downloads.finished({ guid, state: 'completed', receivedBytes: 5, totalBytes: 5 }))
   */
  async finished(params: Params): Promise<Params> {
    if (params.state !== 'completed' || typeof params.guid !== 'string') return params
    const guid = params.guid
    let state = this.finishing.get(guid)
    if (state === undefined) {
      state = this.deliver(guid)
      this.finishing.set(guid, state)
      setTimeout(() => this.finishing.delete(guid), 60_000).unref()
    }
    return { ...params, state: await state }
  }

  private async deliver(guid: string): Promise<string> {
    // Chromium's guid names the client's copy under allowAndName: never anything but one.
    if (!GUID.test(guid)) return 'canceled'
    const context = this.contexts.get(guid)
    const behaviour = context === undefined ? undefined : this.behaviours.get(context)
    // The client named nothing for this context (or the browser's default): the errand's file only.
    if (behaviour === undefined || behaviour.behavior === 'default') return 'completed'
    if (behaviour.behavior === 'deny') return 'canceled'
    const saved = await this.options.download?.(guid)
    if (saved === undefined) return 'canceled'
    const folder = behaviour.downloadPath
    const why = await deliverable(folder, this.options.filesDir)
    if (why !== undefined) {
      if (!this.refusedFolders.has(String(folder))) {
        this.refusedFolders.add(String(folder))
        this.options.log(
          `devtools: a client of ${this.options.name} named a download folder the endpoint does not write into ` +
            `(${why}); its downloads stay in the errand's folder`,
        )
      }
      return 'completed'
    }
    try {
      const name = behaviour.behavior === 'allowAndName' ? guid : await freeName(folder!, basename(saved))
      await copyFile(saved, join(folder!, name), constants.COPYFILE_EXCL)
    } catch (error) {
      this.options.log(
        `devtools: a client's copy of a download of ${this.options.name} failed ` +
          `(${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
      )
    }
    return 'completed'
  }
}
