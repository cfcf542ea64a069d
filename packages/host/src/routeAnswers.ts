/**
 * What the host's other routes answer, as Schemas (issue #24's declared `/v1`): health, the
 * stateless endpoints, the session's own routes, the person's, and the wrappers the routes put
 * around a page verb's answer (`{ tabs }`, `{ viewport }` …). The route table declares each
 * route's answer with one of these or a page verb's (`answers.ts`); the host encodes what it sends
 * through it, and `/v1/openapi.json` is generated from the same Schemas, so the document and the
 * wire cannot tell two stories.
 *
 * @example
 * Schema.decodeUnknownSync(Released)({ released: true })
 */
import { LendReport, Permission } from '@errands/lending'
import { ErrandViewSchema } from '@errands/sessions'
import { Schema } from 'effect'
import { TabView, Tabs, ViewportSize } from './answers.ts'

/** `GET /v1/tabs`, and what activating or closing a tab leaves. @example { tabs: [] } */
export const TabsAnswer = Schema.Struct({ tabs: Tabs })

/**
 * `POST /v1/tabs`: the tab opened (and activated). @example { tab: { id: 'abc-t2', url, title: '', active: true,
 * reason: 'task', lentSites: [] } }
 */
export const OpenedTab = Schema.Struct({ tab: TabView })

/** `POST /v1/viewport`: the size now in force. @example { viewport: { width: 1024, height: 768 } } */
export const ViewportAnswer = Schema.Struct({ viewport: ViewportSize })

/** `DELETE /v1/session`, `DELETE /v1/person/sessions/:key` (idempotent). @example { released: true } */
export const Released = Schema.Struct({ released: Schema.Literal(true) })

/** `DELETE /v1/person/chats/:chat`. @example { deleted: true } */
export const Deleted = Schema.Struct({ deleted: Schema.Literal(true) })

/** `GET /v1/session/devtools`: where a CDP client connects. @example { url: 'ws://127.0.0.1:7777/devtools/<token>' } */
export const DevToolsAnswer = Schema.Struct({ url: Schema.String })

/**
 * `PUT /v1/session/proxy`: whether the errand now has an upstream proxy (never which). @example { upstreamProxy: 'set'
 * }
 */
export const SessionProxyAnswer = Schema.Struct({ upstreamProxy: Schema.Literal('set', 'none') })

/**
 * `POST /v1/fetch`: one GET from the host through the policy. @example { url, status: 200, headers: {}, body: '',
 * encoding: 'utf-8', truncated: false, redirects: 0 }
 */
export const FetchAnswer = Schema.Struct({
  url: Schema.String,
  status: Schema.Number,
  headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  body: Schema.String,
  encoding: Schema.Literal('utf-8', 'base64'),
  truncated: Schema.Boolean,
  redirects: Schema.Number,
})

/**
 * `GET /v1/localhosts`: the configured ports that answered. @example { services: [{ port: 5173, url, status: 200,
 * server: null, title: 'Vite App' }] }
 */
export const LocalhostsAnswer = Schema.Struct({
  services: Schema.Array(
    Schema.Struct({
      port: Schema.Number,
      url: Schema.String,
      status: Schema.Number,
      server: Schema.NullOr(Schema.String),
      title: Schema.NullOr(Schema.String),
    }),
  ),
})

const EgressReport = Schema.Struct({
  on: Schema.Boolean,
  remoteBypasses: Schema.Boolean,
  allowed: Schema.Number,
  refused: Schema.Number,
  byRule: Schema.Record({ key: Schema.String, value: Schema.Number }),
  lastRefusedAt: Schema.NullOr(Schema.Number),
})

const DialogReport = Schema.Struct({ dismissedUnanswered: Schema.Number, deadlineMs: Schema.Number })

const ClusterReport = Schema.Struct({
  runner: Schema.String,
  runners: Schema.Array(Schema.Struct({ address: Schema.String, healthy: Schema.Boolean, alive: Schema.Boolean })),
  shards: Schema.Struct({ total: Schema.Number, here: Schema.Number }),
})

const RemoteState = Schema.Literal('connected', 'fallback', 'disconnected')

/** The counts both health answers share (X1: nothing in them names a conversation). */
const counts = {
  ok: Schema.Boolean,
  open: Schema.Number,
  parked: Schema.Number,
  /** Open errands frozen by idleness (C4). */
  frozen: Schema.Number,
  cap: Schema.Number,
  sessions: Schema.Number,
  /** Errands a person drives from the live view now (P1). */
  personDriving: Schema.Number,
  /** Errands whose agent waits for the person: a request for help or a sign-in question (P3, P4). */
  waitingForPerson: Schema.Number,
  cluster: Schema.optional(ClusterReport),
}

/**
 * The open `GET /health`: liveness and counts (X1). @example { ok: true, runtime: { kind: 'chromium', where: 'local'
 * }, open: 1, parked: 0, cap: 4, sessions: 1, personDriving: 0, waitingForPerson: 1, messages: 0 }
 */
export const PublicHealthAnswer = Schema.Struct({
  ...counts,
  runtime: Schema.Struct({
    kind: Schema.String,
    where: Schema.Literal('local', 'remote'),
    remote: Schema.optional(Schema.Struct({ state: RemoteState })),
    egress: Schema.optional(EgressReport),
    dialogs: Schema.optional(DialogReport),
  }),
  /** How many messages the person's report holds. */
  messages: Schema.Number,
})

/** `GET /v1/person/health`: the whole report, messages in words and the remote endpoint. */
export const HealthAnswer = Schema.Struct({
  ...counts,
  runtime: Schema.Struct({
    kind: Schema.String,
    where: Schema.Literal('local', 'remote'),
    remote: Schema.optional(Schema.Struct({ endpoint: Schema.String, state: RemoteState })),
    egress: Schema.optional(EgressReport),
    dialogs: Schema.optional(DialogReport),
    // W3: stand-ins live, swapped and withheld (attempted exfiltrations), counts only.
    passwords: Schema.optional(Schema.Struct({ live: Schema.Number, swapped: Schema.Number, withheld: Schema.Number })),
  }),
  messages: Schema.Array(
    Schema.Struct({
      at: Schema.Number,
      level: Schema.Literal('info', 'warning'),
      text: Schema.String,
      conversationId: Schema.optional(Schema.String),
    }),
  ),
})

/**
 * The person's browser settings as stored (L1). @example { version: 1, alwaysAllowed: ['shop.example'], trust: 'ask' }
 */
export const SettingsAnswer = Schema.Struct({
  version: Schema.Literal(1),
  alwaysAllowed: Schema.Array(Schema.String),
  trust: Schema.Literal('ask', 'auto', 'full'),
})

/**
 * What a revoke or a sign-out took back (names and sites only, L7). @example { sites: 'all', errands: [], dropped: []
 * }
 */
export const TakeBackAnswer = Schema.Struct({
  sites: Schema.Union(Schema.Array(Schema.String), Schema.Literal('all')),
  errands: Schema.Array(
    Schema.Struct({
      conversationId: Schema.String,
      where: Schema.Literal('open', 'parked'),
      cookies: Schema.Array(Schema.String),
      origins: Schema.Array(Schema.String),
    }),
  ),
  dropped: Schema.Array(Schema.String),
})

/** `POST /v1/person/permission`: the permission card. */
export const PermissionAnswer = Permission

/** `POST /v1/person/lend`: what the Allow moved into which errand. */
export const LendAnswer = LendReport

/** One conversation's errand as the supervisor shows it (the boundary's Schema, one for every face). */
export const ErrandViewAnswer = ErrandViewSchema

/** `GET /v1/person/sessions`. @example { sessions: [] } */
export const SessionsAnswer = Schema.Struct({ sessions: Schema.Array(ErrandViewAnswer) })

/**
 * The XState inspector's switch (V3). @example { on: false, url: null, events: null, viewer:
 * 'https://stately.ai/inspect', actors: 0, how: '…', network: '…', error: null }
 */
export const InspectorAnswer = Schema.Struct({
  on: Schema.Boolean,
  url: Schema.NullOr(Schema.String),
  events: Schema.NullOr(Schema.String),
  viewer: Schema.String,
  actors: Schema.Number,
  how: Schema.String,
  network: Schema.String,
  error: Schema.NullOr(Schema.String),
})

/** `GET /v1/openapi.json`: an OpenAPI 3.1 document (validated by its own test, not by this Schema). */
export const OpenApiAnswer = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: 'OpenApiDocument',
  description: 'This document: OpenAPI 3.1.',
})
