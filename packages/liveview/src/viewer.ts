/**
 * One open page of the live view (V1, C1): what it watches, and the screencast of that
 * conversation's active tab, following the tab as it changes — or, for an errand another host of a
 * cluster holds, the frames its owner serves (`remoteCast.ts`). Watch, unwatch and follow steps run
 * one at a time, so the old stream always ends before the new one begins.
 */
import type { RuntimeShape } from '@errands/runtime'
import type { SessionsShape } from '@errands/sessions'
import { toFailure } from '@errands/edge'
import { Effect } from 'effect'
import type { WebSocket } from 'ws'
import { LiveCast } from './cast.ts'
import { tabsOf } from './conversations.ts'
import { REMOTE_FRAME_MS, RemoteCast, type RemoteErrand } from './remoteCast.ts'
import type { ClientMessage, ServerMessage } from './protocol.ts'

/** What a viewer needs from the live view that holds it. */
export interface ViewerDeps {
  readonly sessions: SessionsShape
  readonly runtime: RuntimeShape
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  readonly log: (line: string) => void
  /** How often the stream checks that it shows the watched conversation's active tab. */
  readonly followMs: number
  /** Where an errand this host does not hold streams from (its owner in a cluster). */
  readonly remote?: ((conversationId: string) => Effect.Effect<RemoteErrand | undefined, unknown>) | undefined
}

/** One open page of the live view: its socket and what it watches. */
export class Viewer {
  watching: string | undefined
  cast: LiveCast | RemoteCast | undefined
  castKey = ''
  /** The tab's URL and title last told to the page. */
  told = ''
  follow: NodeJS.Timeout | undefined
  /** Serialises watch / unwatch / follow steps. */
  queue: Promise<void> = Promise.resolve()

  constructor(
    readonly socket: WebSocket,
    private readonly deps: ViewerDeps,
  ) {}

  say(message: ServerMessage): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message))
  }

  enqueue(step: () => Promise<void>): void {
    this.queue = this.queue.then(step).catch((e) => {
      this.deps.log(`live view: ${toFailure(e).code} while switching the stream`)
      this.say({ type: 'error', message: toFailure(e).message })
    })
  }

  async stopCast(): Promise<void> {
    const cast = this.cast
    this.cast = undefined
    this.castKey = ''
    if (cast) await cast.stop()
  }

  async unwatch(): Promise<void> {
    if (this.follow) clearInterval(this.follow)
    this.follow = undefined
    await this.stopCast()
    const old = this.watching
    this.watching = undefined
    if (old !== undefined) await this.deps.run(this.deps.sessions.unwatch(old))
  }

  async watch(conversationId: string): Promise<void> {
    // The old stream ends before the new one begins: no frame of the old one after this.
    await this.unwatch()
    // An errand held by another host of a cluster may be unknown to this supervisor: it is
    // streamed from its owner (syncCast), and its owner counts the frame calls as use.
    await this.deps.run(
      Effect.catchTag(this.deps.sessions.watch(conversationId), 'UnknownConversation', (e) =>
        this.deps.remote ? Effect.void : Effect.fail(e),
      ),
    )
    this.watching = conversationId
    await this.syncCast()
    this.follow = setInterval(() => this.enqueue(() => this.syncCast()), this.deps.followMs)
    this.follow.unref()
  }

  /** Points the stream at the watched conversation's active tab, wherever that is now. */
  async syncCast(): Promise<void> {
    const id = this.watching
    if (id === undefined) return
    const view = await this.deps.run(Effect.option(this.deps.sessions.view(id)))
    const contextId =
      view._tag === 'Some' && (view.value.state === 'active' || view.value.state === 'main')
        ? view.value.contextId
        : null
    const tabs = contextId === null ? [] : await this.deps.run(tabsOf(this.deps.runtime, contextId))
    const active = tabs.find((t) => t.active) ?? tabs[0]
    const key = contextId !== null && active ? `${contextId}/${active.id}` : ''
    if (key === '' && this.castKey === `remote:${id}` && this.cast?.running) return
    const remote =
      key === '' && this.deps.remote
        ? await this.deps.run(Effect.orElseSucceed(this.deps.remote(id), () => undefined))
        : undefined
    if (remote !== undefined) return this.castRemote(id, remote)
    if (key === this.castKey && (this.cast?.running ?? key === '')) {
      // Same tab, maybe a new page in it: the caption follows.
      if (active && this.cast && this.told !== `${active.url}\n${active.title}`) {
        this.told = `${active.url}\n${active.title}`
        this.say({ type: 'watching', conversationId: id, tab: { url: active.url, title: active.title } })
      }
      return
    }
    await this.stopCast()
    if (this.watching !== id) return
    const screencast = this.deps.runtime.screencast
    if (contextId === null || !active) {
      const note =
        view._tag === 'Some' && view.value.state === 'parked'
          ? 'Set aside: resume it to see it.'
          : 'No page to show yet.'
      this.say({ type: 'watching', conversationId: id, tab: null, note })
      return
    }
    // Only the stream of what is watched now reaches the page — including frames that come
    // before `start` answers: the cast is `this.cast` from the start, so acks reach it too.
    const cast = LiveCast.create((frame) => {
      if (this.cast !== cast || this.watching !== id) return
      this.say({ type: 'frame', conversationId: id, ...frame })
    })
    this.cast = cast
    await cast.start((settings) => this.deps.run(screencast(contextId, active.id, settings)))
    if (this.watching !== id) {
      await this.stopCast()
      return
    }
    this.castKey = key
    this.told = `${active.url}\n${active.title}`
    this.say({ type: 'watching', conversationId: id, tab: { url: active.url, title: active.title } })
  }

  /** Streams an errand held by another host from its owner (remoteCast.ts). */
  async castRemote(id: string, remote: RemoteErrand): Promise<void> {
    await this.stopCast()
    if (this.watching !== id) return
    const cast = new RemoteCast(
      remote.frame,
      (frame) => {
        if (this.cast === cast && this.watching === id) this.say({ type: 'frame', conversationId: id, ...frame })
      },
      REMOTE_FRAME_MS,
    )
    this.cast = cast
    this.castKey = `remote:${id}`
    cast.start()
    this.say({ type: 'watching', conversationId: id, tab: remote.tab })
  }

  receive(message: ClientMessage): void {
    switch (message.type) {
      case 'watch':
        return this.enqueue(() => this.watch(message.conversationId))
      case 'unwatch':
        return this.enqueue(async () => {
          await this.unwatch()
          this.say({ type: 'watching', conversationId: null, tab: null })
        })
      case 'ack':
        this.cast?.ack(message.seq)
    }
  }
}
