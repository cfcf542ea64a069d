import type { TaskStatus } from '@errands/machines'
import { memoryRuntimeLayer, type Runtime, type UpstreamProxy } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { Cause, Effect, Exit, Layer, ManagedRuntime, Redacted } from 'effect'
import { EventEmitter } from 'node:events'
import { defaultSettings, type SupervisorSettings } from './config.ts'
import { Supervisor } from './Supervisor.ts'
import type { Binding, Capacity, Conversation, ErrandView, HealthMessage, Sessions } from '@errands/sessions'
import { sessionsLayer } from './SessionsService.ts'
import type { SupervisorOptions } from './types.ts'

/** How to build an {@link Errands} engine without touching Effect. */
export interface ErrandsOptions extends Omit<SupervisorOptions, 'settings'> {
  /** Cap, idle limit, debounce, data dir; anything unset takes its default. */
  readonly settings?: Partial<SupervisorSettings> | undefined
  /** Where errands browse. Default: the deterministic in-memory runtime. */
  readonly runtime?: Layer.Layer<Runtime, unknown> | undefined
  /** Where parked errands are sealed. Default: in memory (nothing survives a restart). */
  readonly store?: Layer.Layer<SealedStore, unknown> | undefined
}

/**
 * A conversation to open, its upstream proxy as a plain URL allowed. @example const o: OpenOptions = { id: 't1', kind:
 * 'task' }
 */
export type OpenOptions = Omit<Conversation, 'upstreamProxy'> & {
  readonly upstreamProxy?: string | UpstreamProxy | undefined
}

/** Events an {@link Errands} engine emits. */
export interface ErrandsEvents {
  change: [view: ErrandView]
  health: [message: HealthMessage]
}

/**
 * The engine for backends that do not use Effect: every method returns a Promise, failures
 * reject with the typed error itself (`error._tag`, `error.reason`, `error.message` written for a
 * model, `error.status` for HTTP), and state changes arrive as `change` events.
 *
 * @example
 * const errands = await Errands.create({ settings: { maxErrands: 2 } })
 * errands.on('change', (view) => console.log(view.conversationId, view.state))
 * await errands.open({ id: 'task-1', kind: 'task' })
 * await errands.use('task-1', async ({ contextId }) => driveMyBrowser(contextId))
 * await errands.taskChanged('task-1', 'interrupted') // parked
 * await errands.close()
 */
export class Errands extends EventEmitter<ErrandsEvents> {
  private constructor(
    private readonly managed: ManagedRuntime.ManagedRuntime<Supervisor | Sessions | Runtime, unknown>,
    private readonly supervisor: Supervisor['Type'],
  ) {
    super()
  }

  static async create(options: ErrandsOptions = {}): Promise<Errands> {
    const { runtime, store, settings, ...rest } = options
    // The runtime stays in reach too: adapters (`runWith`) need it beside the supervisor.
    // The session boundary too: adapters over the Promise API (the DevTools server) are faces and act through it.
    const layer = sessionsLayer.pipe(
      Layer.provideMerge(Supervisor.layer({ ...rest, settings: defaultSettings(settings) })),
      Layer.provideMerge(Layer.merge(runtime ?? memoryRuntimeLayer, store ?? SealedStore.layerMemory)),
    )
    const managed = ManagedRuntime.make(layer as Layer.Layer<Supervisor | Sessions | Runtime, unknown>)
    const supervisor = await managed.runPromise(Supervisor)
    const errands = new Errands(managed, supervisor)
    supervisor.onChange((view) => errands.emit('change', view))
    supervisor.onHealth((message) => errands.emit('health', message))
    return errands
  }

  /**
   * Runs an Effect against this engine's supervisor and runtime — for adapters that speak Effect
   * inside and Promises outside (`@errands/devtools`' `DevToolsServer`). Failures reject with the
   * typed error itself, like every method here.
   *
   * @example
   * const capacity = await errands.runWith(Effect.flatMap(Supervisor, (s) => s.capacity))
   */
  runWith<A, E>(effect: Effect.Effect<A, E, Supervisor | Sessions | Runtime>): Promise<A> {
    return this.run(effect)
  }

  private run<A, E>(effect: Effect.Effect<A, E, Supervisor | Sessions | Runtime>): Promise<A> {
    return this.managed
      .runPromiseExit(effect)
      .then((exit) => (Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause))))
  }

  /**
   * Opens the conversation's errand. `upstreamProxy` (a URL, or a `Redacted` one) names the proxy
   * its connections leave through (issue #21); a bad one rejects with `InvalidUpstreamProxy`.
   *
   * @example
   * await errands.open({ id: 'task-1', kind: 'task', upstreamProxy: 'http://user:pass@proxy.example:3128' })
   */
  open(conversation: OpenOptions): Promise<Binding> {
    const { upstreamProxy, ...rest } = conversation
    const proxy = typeof upstreamProxy === 'string' ? Redacted.make(upstreamProxy) : upstreamProxy
    return this.run(this.supervisor.open(proxy === undefined ? rest : { ...rest, upstreamProxy: proxy }))
  }

  /**
   * Names the errand's upstream proxy from now on (`null`: none).
   *
   * @example
   * await errands.setUpstreamProxy('task-1', null)
   */
  setUpstreamProxy(conversationId: string, upstreamProxy: string | UpstreamProxy | null): Promise<void> {
    const proxy = typeof upstreamProxy === 'string' ? Redacted.make(upstreamProxy) : (upstreamProxy ?? undefined)
    return this.run(this.supervisor.setUpstreamProxy(conversationId, proxy))
  }

  /** Runs `f` with the conversation's context while driving it; it is never parked meanwhile. */
  use<A>(conversationId: string, f: (binding: Binding) => Promise<A>): Promise<A> {
    return this.run(this.supervisor.use(conversationId, (b) => Effect.promise(() => f(b))))
  }

  taskChanged(conversationId: string, status: TaskStatus): Promise<ErrandView> {
    return this.run(this.supervisor.taskChanged(conversationId, status))
  }

  chatDeleted(conversationId: string): Promise<void> {
    return this.run(this.supervisor.chatDeleted(conversationId))
  }

  setOwnBrowser(conversationId: string, on: boolean): Promise<ErrandView> {
    return this.run(this.supervisor.setOwnBrowser(conversationId, on))
  }

  watch(conversationId: string): Promise<void> {
    return this.run(this.supervisor.watch(conversationId))
  }

  unwatch(conversationId: string): Promise<void> {
    return this.run(this.supervisor.unwatch(conversationId))
  }

  park(conversationId: string): Promise<ErrandView> {
    return this.run(this.supervisor.park(conversationId))
  }

  resume(conversationId: string): Promise<Binding> {
    return this.run(this.supervisor.resume(conversationId))
  }

  release(conversationId: string): Promise<void> {
    return this.run(this.supervisor.release(conversationId))
  }

  list(): Promise<ReadonlyArray<ErrandView>> {
    return this.run(this.supervisor.list)
  }

  capacity(): Promise<Capacity> {
    return this.run(this.supervisor.capacity)
  }

  health(): Promise<ReadonlyArray<HealthMessage>> {
    return this.run(this.supervisor.health)
  }

  /** Parks every open errand, closes the runtime and stops. Idempotent. */
  async close(): Promise<void> {
    await this.managed.dispose()
  }
}
