/**
 * What the live view's server and page say to each other (V1–V2): the state the page shows, and
 * the messages on its WebSocket. Shared by `server.ts` and `web/` (type-only imports), so the two
 * cannot drift apart.
 *
 * @example
 * const hello: ClientMessage = { type: 'watch', conversationId: 'session:k1' }
 */
import type { Capacity, ErrandView, HealthMessage } from '@errands/sessions'

/** One tab of a context, as the person sees it. */
export interface LiveTab {
  readonly id: string
  readonly url: string
  readonly title: string
  readonly active: boolean
}

/** One conversation in the list: the supervisor's view of it (reason, state, who, last use, lent
 * sites for E6's tooltip) and its context's tabs (empty when it holds no context; a chat on main
 * shows main's under `LiveState.main`). */
export interface LiveConversation extends Omit<ErrandView, 'contextId'> {
  readonly tabs: ReadonlyArray<LiveTab>
  /** In a cluster, the host (runner address) that holds this errand open, when it is another one. */
  readonly heldBy?: string | undefined
}

/** The inspector's switch (V3), when the host has one. */
export interface LiveInspector {
  readonly on: boolean
  /** How to open it, in words (and a URL when there is one). */
  readonly howToOpen: string
  readonly url?: string | undefined
}

/**
 * A question an errand is waiting on (P4, issue #26): the card "Allow lends your sign-in to this
 * task" with Allow and Deny.
 */
export interface LiveQuestion {
  readonly id: string
  readonly kind: 'sign-in'
  readonly conversationId: string
  readonly site: string
  readonly askedAt: number
  /** When the errand stops waiting (ms since the epoch). */
  readonly expiresAt: number
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
  /** Questions errands are waiting on, oldest first (absent: the host asks none). */
  readonly questions?: ReadonlyArray<LiveQuestion> | undefined
}

/** Server → page. */
export type ServerMessage =
  | { readonly type: 'state'; readonly state: LiveState }
  /** The stream now shows this conversation (`tab` null: it has no page to show yet). */
  | {
      readonly type: 'watching'
      readonly conversationId: string | null
      readonly tab: { readonly url: string; readonly title: string } | null
      readonly note?: string | undefined
    }
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

/** The header every API call carries the sign-in id in (X4, `auth.ts`). @example headers[LIVE_HEADER] */
export const LIVE_HEADER = 'x-errands-live'

/** The WebSocket subprotocol the socket opens with; the sign-in id is offered second (X4). */
export const LIVE_PROTOCOL = 'errands-live'

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
  /** GET the saved sign-ins, POST a new one (W1, `passwords.ts`). */
  passwords: '/live/api/passwords',
  /** POST `{"csv": …}`: a Chrome or Firefox export. */
  passwordsImport: '/live/api/passwords/import',
  /** PUT a change, DELETE. */
  password: (id: string) => `/live/api/passwords/${encodeURIComponent(id)}`,
  /** POST `{"answer":"allow"|"deny"}` (issue #26). */
  question: (id: string) => `/live/api/questions/${encodeURIComponent(id)}`,
  /** `${paths.conversation(id)}/park` … */
  conversation: (id: string) => `/live/api/conversations/${encodeURIComponent(id)}`,
} as const
