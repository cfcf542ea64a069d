/**
 * What the live view's server and page say to each other (V1–V2): the state the page shows, and
 * the messages on its WebSocket. Shared by `server.ts` and `web/` (type-only imports), so the two
 * cannot drift apart.
 *
 * @example
 * const hello: ClientMessage = { type: 'watch', conversationId: 'session:k1' }
 */

import type {
  LiveConversationSchema,
  LiveInspectorSchema,
  LiveQuestionSchema,
  LiveStateSchema,
  LiveTabSchema,
} from './state.ts'

/** One tab of a context, as the person sees it (`state.ts`). */
export type LiveTab = typeof LiveTabSchema.Type

/** One conversation in the list: its errand's view and its tabs (`state.ts`). */
export type LiveConversation = typeof LiveConversationSchema.Type

/** The inspector's switch (V3), when the host has one (`state.ts`). */
export type LiveInspector = typeof LiveInspectorSchema.Type

/** A question an errand is waiting on (P4, `state.ts`). */
export type LiveQuestion = typeof LiveQuestionSchema.Type

/** Everything the page shows (`state.ts`). */
export type LiveState = typeof LiveStateSchema.Type

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
