/**
 * The local Chromium runtime (R1): the person's main context in a persistent profile, and one
 * fresh context per errand in a second, non-persistent Chromium started on first use.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const runtime = yield* Runtime
 *   const id = yield* runtime.openContext({ errandId: 'e1', label: { reason: 'task', lentSites: [] } })
 *   return yield* runtime.tabs(id)
 * }).pipe(Effect.provide(ChromiumRuntime.layer({ dataDir: '/tmp/errands' })))
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { makeResolver, resolverRulesIn, type Resolver } from '@errands/egress'
import type { Decision } from '@errands/guard'
import {
  MAIN_CONTEXT,
  Runtime,
  RuntimeError,
  type ContextId,
  type ContextNotFound,
  type Cookie,
  type InvalidUpstreamProxy,
  type OpenContextSpec,
  type OriginStorage,
  type RuntimeShape,
  type SessionLabel,
  type SecretVerbs,
  type Snapshot,
  type StorageState,
  type UpstreamProxy,
} from '@errands/runtime'
import { Effect, Layer, type Scope } from 'effect'
import type { BrowserContext, Page } from 'playwright-core'
import { closeMain, ErrandsBrowser, launchMain, launchTimeoutMs, reapOrphans, type LaunchSettings } from './browsers.ts'
import { sweepStaleTmpDirs } from './tmpDirs.ts'
import { isolateClipboard } from './clipboard.ts'
import { checkNavigation, guardContextWebSockets, wireEgress, type EgressWiring } from './containment.ts'
import { StorageReads, type KeptStorage } from './contextStorage.ts'
import { UpstreamChaining } from './upstreamChaining.ts'
import { ContextRuntime, type ContextEntry } from './contexts.ts'
import { call, closeWithin, within } from './failures.ts'
import { restoreIndexedDb } from './indexedDb.ts'
import { launchSettingsOf } from './launchSettings.ts'
import { goto, tabUrl } from './navigation.ts'
import { fillSecrets } from './secretFill.ts'
import { StandInSwap } from './standInSwap.ts'
import { witnessDownloads } from './downloadWitness.ts'
import { DEFAULT_INDEXEDDB_MAX_BYTES, type ChromiumRuntimeOptions } from './options.ts'
import { clearOriginsIn, removeCookiesFrom, toPlaywrightCookies } from './storage.ts'

/** One open context and what this runtime keeps about it beyond the shared part (its storage: KeptStorage). */
interface Entry extends ContextEntry, KeptStorage {
  readonly kind: 'main' | 'errand'
  /** The errands' browser generation it lives in (main: 0). */
  readonly generation: number
}

const MAIN_LABEL: SessionLabel = { reason: 'main', lentSites: [] }

/**
 * `RuntimeShape` over real Chromium. Create it with {@link ChromiumRuntime.make} (you call
 * `shutdown`) or {@link ChromiumRuntime.layer} (shut down when the layer's scope closes).
 *
 * @example
 * const runtime = await Effect.runPromise(ChromiumRuntime.make({ dataDir }))
 * const id = await Effect.runPromise(runtime.openContext({ errandId: 'e1', label: { reason: 'task', lentSites: [] } }))
 * await Effect.runPromise(runtime.shutdown)
 */
export class ChromiumRuntime extends ContextRuntime<Entry> implements RuntimeShape {
  readonly kind = 'chromium'
  readonly mainContext: ContextId = MAIN_CONTEXT

  private readonly errands: ErrandsBrowser
  /** The errands' browser's stand-in swap (W3): passwords go into requests, never into pages. */
  private readonly swap: StandInSwap
  private readonly profileDir: string
  private mainTmpDir: string | undefined
  private mainStarting: Promise<Entry> | undefined
  private counter = 0
  private state: 'open' | 'closing' | 'closed' = 'open'
  private closing: Promise<void> | undefined

  /** Errands' upstream proxies behind the egress (upstreamChaining.ts). */
  private readonly upstream: UpstreamChaining
  /** Each context's storage reads (contextStorage.ts). */
  private readonly storageReads: StorageReads

  private constructor(
    private readonly settings: LaunchSettings,
    options: ChromiumRuntimeOptions,
    private readonly egressWiring: EgressWiring | undefined,
  ) {
    super({
      deadlineMs: settings.deadlineMs,
      policy: settings.policy,
      log: settings.log,
      noun: 'context',
      files: options.files,
      owner: settings.owner,
    })
    this.upstream = new UpstreamChaining(egressWiring, options.upstreamProxy)
    this.storageReads = new StorageReads({
      deadlineMs: settings.deadlineMs,
      log: settings.log,
      maxBytes: options.indexedDbMaxBytes ?? DEFAULT_INDEXEDDB_MAX_BYTES,
      ownPages: this.ownPages,
      attached: (id) => this.devtoolsClients.has(id),
      blocks: (page) => this.dialogs.blocks(page),
    })
    this.profileDir = join(options.dataDir, 'profile')
    this.swap = new StandInSwap(settings.log)
    this.errands = new ErrandsBrowser(
      {
        ...settings,
        interceptFirst: (browser) => this.swap.attach(browser),
        // Downloads Playwright never reports (a page it has not taken in yet) are saved too (downloadWitness.ts).
        launched: (browser, artifactsDir) =>
          witnessDownloads(
            browser,
            artifactsDir,
            (d) => void this.downloads.witnessed(d, (id) => this.contextOfBrowserContext(id)),
          ),
      },
      (generation) => this.onErrandsBrowserCrash(generation),
    )
  }

  /**
   * Launches the main browser on `<dataDir>/profile` and returns the runtime. The errands'
   * browser starts with the first errand.
   *
   * @example
   * const runtime = yield* ChromiumRuntime.make({ dataDir: '/var/lib/errands', policy })
   */
  static make(options: ChromiumRuntimeOptions): Effect.Effect<ChromiumRuntime, RuntimeError> {
    return Effect.gen(function* () {
      const settings = yield* launchSettingsOf(options)
      const log = settings.log
      // Every context leaves through the egress (G3): it starts before any browser does.
      const egress =
        options.egress === false
          ? undefined
          : yield* call('start the egress', 5_000, () =>
              wireEgress({ policy: settings.policy, log, extraArgs: settings.extraArgs }),
            )
      const runtime = new ChromiumRuntime(
        egress === undefined ? settings : { ...settings, mainProxy: egress.mainProxy, newContext: egress.newContext },
        options,
        egress,
      )
      const reaped = reapOrphans(settings.owner, runtime.profileDir)
      if (reaped > 0) log(`stopped ${reaped} Chromium processes an earlier run on this data dir left behind`)
      const swept = sweepStaleTmpDirs(settings.owner)
      if (swept > 0) log(`removed ${swept} temp folders an earlier run on this data dir left behind`)
      yield* call('launch main browser', launchTimeoutMs(settings) + 5_000, () => runtime.startMain()).pipe(
        Effect.tapError(() => Effect.promise(() => egress?.close() ?? Promise.resolve())),
      )
      return runtime
    })
  }

  /**
   * The runtime as a scoped resource: shut down when the scope closes.
   *
   * @example
   * Effect.scoped(Effect.gen(function* () { const rt = yield* ChromiumRuntime.scoped({ dataDir }) }))
   */
  static scoped(options: ChromiumRuntimeOptions): Effect.Effect<ChromiumRuntime, RuntimeError, Scope.Scope> {
    return Effect.acquireRelease(ChromiumRuntime.make(options), (runtime) => runtime.shutdown)
  }

  /**
   * The `Runtime` service backed by Chromium.
   *
   * @example
   * program.pipe(Effect.provide(ChromiumRuntime.layer({ dataDir })))
   */
  static layer(options: ChromiumRuntimeOptions): Layer.Layer<Runtime, RuntimeError> {
    return Layer.scoped(Runtime, ChromiumRuntime.scoped(options))
  }

  // ---- extras beyond RuntimeShape (tests, adapters) ----

  /** The errands' browser pid while it runs. @example process.kill(runtime.errandsBrowserPid()!, 'SIGKILL') */
  errandsBrowserPid(): number | undefined {
    return this.errands.pid()
  }

  /**
   * Chains an errand context through another upstream proxy from now on (`undefined`: the
   * runtime's default, or none); its open connections are closed so none keeps the old way out.
   *
   * @example
   * yield* runtime.setUpstreamProxy(contextId, Redacted.make('http://user:pass@proxy.example:3128'))
   */
  readonly setUpstreamProxy = (
    contextId: ContextId,
    proxy: UpstreamProxy | undefined,
  ): Effect.Effect<void, RuntimeError | ContextNotFound | InvalidUpstreamProxy> =>
    this.upstream.set(contextId, () => this.entryOf(contextId), proxy)

  /**
   * The egress every context leaves through (G3); `undefined` when switched off. @example
   * runtime.egress?.stats().refused
   */
  get egress(): EgressWiring['egress'] | undefined {
    return this.egressWiring?.egress
  }

  /** Whether a warm spare context waits in the errands' browser (tests). @example runtime.hasWarmSpare() */
  hasWarmSpare(): boolean {
    return this.errands.spareReady()
  }

  /** The warm spare's page, when one is ready (tests). @example runtime.warmSparePage()?.isClosed() */
  warmSparePage(): Page | undefined {
    return this.errands.sparePage()
  }

  /**
   * Filling secrets with stand-ins the errands' browser swaps before the wire (W3,
   * docs/passwords.md). An errand's tabs only: the person's main context never gets a stand-in.
   *
   * @example
   * yield* runtime.secrets.fill(contextId, 't1', { fields, destination, timeoutMs: 10_000 })
   */
  readonly secrets: SecretVerbs = {
    fill: (contextId, tabId, fill) =>
      this.withEntry(
        contextId,
        'fill password',
        async (entry, signal) => {
          if (entry.kind === 'main')
            throw new RuntimeError({ reason: 'invalid', message: "the person's main context is never filled" })
          const page = entry.tabs.get(tabId)
          if (page === undefined) throw new RuntimeError({ reason: 'target-closed', message: `tab ${tabId} is closed` })
          if (!this.swapping.has(entry.context)) {
            this.swapping.add(entry.context)
            entry.context.once('close', () => this.swap.dropContext(contextId))
          }
          return fillSecrets(page, fill, this.swap, contextId, signal)
        },
        Math.max(this.deadlineMs, fill.timeoutMs * fill.fields.length + 1_000),
      ),
    counts: () => this.swap.counts(),
  }

  private readonly swapping = new WeakSet<BrowserContext>()

  // ---- RuntimeShape ----

  readonly openContext = (spec: OpenContextSpec): Effect.Effect<ContextId, RuntimeError> =>
    Effect.suspend(() =>
      this.state !== 'open'
        ? Effect.fail(new RuntimeError({ reason: 'unavailable', message: 'the runtime is shut down' }))
        : call('open context', this.deadlineMs * 2, () => this.doOpenContext(spec)),
    )

  readonly addCookies = (contextId: ContextId, cookies: ReadonlyArray<Cookie>) =>
    this.withEntry(contextId, 'add cookies', async (entry) => {
      if (cookies.length > 0) await entry.context.addCookies(toPlaywrightCookies(cookies))
    })

  readonly removeCookies = (contextId: ContextId, which: (cookie: Cookie) => boolean) =>
    this.withEntry(contextId, 'remove cookies', (entry) => removeCookiesFrom(entry.context, which))

  readonly clearOrigins = (contextId: ContextId, which: (origin: string) => boolean) =>
    this.withEntry(contextId, 'clear origins', (entry) =>
      entry.reads.run(() =>
        clearOriginsIn(entry.context, entry.storage, entry.book, which, () =>
          entry.pageWork.run(() => this.quietPage(entry)),
        ),
      ),
    )

  readonly shutdown: Effect.Effect<void> = Effect.promise(() => (this.closing ??= this.doShutdown()))

  // ---- hooks (see ContextRuntime) ----

  protected override checkNavigation(url: string, contextId: ContextId): Promise<Decision> {
    // Names resolve here as the egress resolves them (its --host-resolver-rules, then the system).
    this.resolveNames ??= makeResolver(resolverRulesIn(this.settings.extraArgs))
    return checkNavigation(url, this.policy, this.resolveNames, this.log, contextId)
  }

  private resolveNames: Resolver | undefined

  protected override goto(page: Page, url: string): Promise<void> {
    return goto(page, this.deadlineMs, url)
  }

  protected override urlOf(page: Page): string {
    return tabUrl(page)
  }

  protected override readStorage(entry: Entry): Promise<StorageState> {
    return this.storageReads.storage(entry, () => entry.pageWork.run(() => this.newQuietPage(entry)))
  }

  protected override readIndexedDb(entry: Entry): Promise<Pick<Snapshot, 'indexedDB' | 'leftOut'>> {
    // The person's main context is never snapshotted for an errand: its IndexedDB is never read (L4).
    if (entry.kind === 'main') return Promise.resolve({})
    return this.storageReads.indexedDb(entry, () => entry.pageWork.run(() => this.newQuietPage(entry)))
  }

  protected override async readSessionStorage(entry: Entry, page: Page): Promise<OriginStorage | undefined> {
    if (entry.kind === 'main') return undefined
    return this.storageReads.sessionStorage(entry, page)
  }

  // A client's page sessions reach Storage.clearDataForOrigin for origins no document shows.
  protected override devtoolsClientChanged(entry: Entry): void {
    entry.book.distrust()
    entry.idb.distrust()
  }

  // The person's context lives as long as the runtime: only `shutdown` closes it, and a renderer
  // crash there takes only the crashed tab.
  protected override isLifelong(entry: Entry): boolean {
    return entry.kind === 'main'
  }

  protected override watchPage(entry: Entry, page: Page): void {
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) entry.storage.markVisited(frame.url())
    })
  }

  // The main browser died: it comes back on next use (H2 for the person's context).
  protected override revive(contextId: ContextId): Effect.Effect<Entry, RuntimeError> | undefined {
    return contextId === MAIN_CONTEXT && this.state === 'open'
      ? call('relaunch main browser', launchTimeoutMs(this.settings) + 5_000, () => this.startMain())
      : undefined
  }

  // ---- internals ----

  private startMain(): Promise<Entry> {
    return (this.mainStarting ??= (async () => {
      try {
        mkdirSync(this.profileDir, { recursive: true })
        const { context, tmpDir } = await launchMain(this.settings, this.profileDir)
        this.mainTmpDir = tmpDir
        const entry = this.trackContext(MAIN_CONTEXT, 'main', context, 0, MAIN_LABEL, [])
        await guardContextWebSockets(context, this.policy, this.log, MAIN_CONTEXT)
        for (const page of context.pages()) this.register(entry, page, true)
        context.on('close', () => {
          if (!this.holds(entry) || this.state !== 'open') return
          this.forget(entry)
          void closeMain(undefined, tmpDir, undefined)
          this.log('main browser closed unexpectedly; it is relaunched on next use')
          this.emit({ _tag: 'BrowserCrashed', contextIds: [MAIN_CONTEXT] })
        })
        return entry
      } finally {
        this.mainStarting = undefined
      }
    })())
  }

  private trackContext(
    id: ContextId,
    kind: Entry['kind'],
    context: BrowserContext,
    generation: number,
    label: SessionLabel,
    origins: StorageState['origins'],
  ): Entry {
    return this.track({
      id,
      kind,
      context,
      generation,
      label,
      ...this.storageReads.keep(context, origins),
    })
  }

  private async doOpenContext(spec: OpenContextSpec): Promise<ContextId> {
    if (spec.upstreamProxy !== undefined && this.egressWiring === undefined) {
      // Never quietly direct: the errand asked to leave through its proxy.
      throw new RuntimeError({
        reason: 'invalid',
        message: 'this runtime runs without the egress, so it cannot chain an errand through an upstream proxy',
      })
    }
    await this.crashedClosed()
    const { context, generation } = await this.errands.newContext()
    const warmPages = context.pages()
    const id = `${spec.errandId}.${++this.counter}`
    this.egressWiring?.assign(context, spec.errandId, this.upstream.textOf(spec.upstreamProxy))
    const entry = this.trackContext(id, 'errand', context, generation, spec.label, spec.storage?.origins ?? [])
    this.errandFiles.belongsTo(id, spec.errandId)
    try {
      // Storage first, before any page runs.
      await Promise.all([
        guardContextWebSockets(context, this.policy, this.log, id),
        isolateClipboard(context, spec.errandId),
        spec.storage && spec.storage.cookies.length > 0
          ? context.addCookies(toPlaywrightCookies(spec.storage.cookies))
          : Promise.resolve(),
        entry.storage.install(),
      ])
      // The errand's own IndexedDB, in pages of the runtime's own, before any tab loads (E7).
      await restoreIndexedDb(spec.indexedDB ?? [], {
        book: entry.idb,
        perOriginMs: Math.min(10_000, this.deadlineMs),
        visitPage: () => entry.pageWork.run(() => this.newQuietPage(entry)),
        log: (line) => this.log(`context ${id}: ${line}`),
      })
      await this.openTabs(entry, spec.tabs, spec.storage, warmPages)
      if (entry.state !== 'open' || !this.holds(entry)) {
        throw new RuntimeError({ reason: 'crashed', message: `context ${id} died while it was opened` })
      }
      this.errands.prepareSpareSoon()
      return id
    } catch (error) {
      this.forget(entry)
      await closeWithin(5_000, context, this.log, `context ${id} (its open failed)`)
      throw error
    }
  }

  private onErrandsBrowserCrash(generation: number): void {
    // Their files folders are set aside for the heals, as a renderer crash's is (K3).
    const dead = this.forgetWhere((e) => e.kind === 'errand' && e.generation === generation, 'crashed')
    if (this.state !== 'open') return
    this.log(`errands browser crashed; lost contexts: ${dead.map((e) => e.id).join(', ') || 'none'}`)
    this.emit({ _tag: 'BrowserCrashed', contextIds: dead.map((e) => e.id) })
  }

  private async doShutdown(): Promise<void> {
    this.state = 'closing'
    await this.mainStarting?.catch(() => undefined)
    const errands = this.forgetWhere((e) => e.kind === 'errand')
    await Promise.all(errands.map((e) => within(this.deadlineMs, e.context.close())))
    await this.errands.close()
    const [main] = this.forgetWhere((e) => e.kind === 'main')
    await closeMain(main?.context, this.mainTmpDir, this.profileDir)
    await this.egressWiring?.close()
    this.clearListeners()
    this.state = 'closed'
  }
}
