/**
 * What the live view's server and page say to each other (V1–V2): the state the page shows, and
 * the messages on its WebSocket. Shared by `server.ts` and `web/` (type-only imports), so the two
 * cannot drift apart.
 *
 * @example
 * const hello: ClientMessage = { type: 'watch', conversationId: 'session:k1' }
 */
import type { Capacity, HealthMessage } from '@errands/supervisor'

/** One tab of a context, as the person sees it. */
export interface LiveTab {
  readonly id: string
  readonly url: string
  readonly title: string
  readonly active: boolean
}

/** Why a conversation's browser is its own (E6), or `main` for the person's signed-in browser. */
export type LiveReason = 'task' | 'helper' | 'own-browser' | 'main'

/** One conversation in the list. */
export interface LiveConversation {
  readonly conversationId: string
  readonly kind: 'task' | 'chat'
  readonly reason: LiveReason
  /** `seeding`, `active`, `parking`, `parked`, `resuming`, `healing`, `closing`, `closed`, or `main`. */
  readonly state: string
  readonly detail: string
  readonly driven: boolean
  readonly watched: boolean
  /** ms since the epoch; 0 when never used. */
  readonly lastUsedAt: number
  readonly parkedAt: number | null
  /** Sites whose sign-ins were lent to this errand (E6's tooltip). */
  readonly lentSites: ReadonlyArray<string>
  /** Its context's tabs (empty when it holds no context; a chat on main shows main's under `main`). */
  readonly tabs: ReadonlyArray<LiveTab>
  readonly lastError: string | null
}

/** The inspector's switch (V3), when the host has one. */
export interface LiveInspector {
  readonly on: boolean
  /** How to open it, in words (and a URL when there is one). */
  readonly howToOpen: string
  readonly url?: string | undefined
}

/** Everything the page shows. */
export interface LiveState {
  /** ms since the epoch, when this state was read. */
  readonly at: number
  readonly capacity: Capacity
  readonly conversations: ReadonlyArray<LiveConversation>
  /** The person's own browser (main context): its tabs. */
  readonly main: { readonly tabs: ReadonlyArray<LiveTab> }
  readonly health: ReadonlyArray<HealthMessage>
  readonly inspector: LiveInspector | null
}

/** Server → page. */
export type ServerMessage =
  | { readonly type: 'state'; readonly state: LiveState }
  /** The stream now shows this conversation (`tab` null: it has no page to show yet). */
  | { readonly type: 'watching'; readonly conversationId: string | null; readonly tab: { readonly url: string; readonly title: string } | null; readonly note?: string | undefined }
  | {
      readonly type: 'frame'
      readonly conversationId: string
      readonly seq: number
      /** JPEG, base64. */
      readonly data: string
      readonly width: number
      readonly height: number
    }
  | { readonly type: 'error'; readonly message: string }

/** Page → server. */
export type ClientMessage =
  | { readonly type: 'watch'; readonly conversationId: string }
  | { readonly type: 'unwatch' }
  /** The page drew frame `seq` of the conversation it watches. */
  | { readonly type: 'ack'; readonly seq: number }

/** The one place the page's paths are named. */
export const paths = {
  page: '/',
  script: '/ui/app.js',
  style: '/ui/app.css',
  signIn: '/live/sign-in',
  signOut: '/live/sign-out',
  state: '/live/api/state',
  socket: '/live/socket',
  inspector: '/live/api/inspector',
  /** `${paths.conversation(id)}/park` … */
  conversation: (id: string) => `/live/api/conversations/${encodeURIComponent(id)}`,
} as const
