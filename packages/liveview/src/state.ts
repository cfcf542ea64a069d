/**
 * What the live view's page shows (V1–V3, P1–P4), as Schemas: the state `GET /live/api/state` answers and
 * the socket pushes, and its parts. The API encodes every answer with these (`routes.ts`) and the host's
 * OpenAPI document describes them, so the page, the wire and the document say one thing; `protocol.ts`
 * names their types for the page's script (type-only, so the script carries no Schema code).
 *
 * @example
 * Schema.encodeUnknownSync(LiveStateSchema)(state)
 */
import { CapacitySchema, ErrandViewSchema, HealthMessageSchema, Question } from '@errands/sessions'
import { Schema } from 'effect'

/** One tab of a context, as the person sees it. */
export const LiveTabSchema = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  title: Schema.String,
  active: Schema.Boolean,
}).annotations({ identifier: 'LiveTab' })

const { contextId: _, ...viewFields } = ErrandViewSchema.fields

/**
 * One conversation in the list: the supervisor's view of it (reason, state, who, last use, lent sites for E6's
 * tooltip) and its context's tabs (empty when it holds no context; a chat on main shows main's under `main`).
 */
export const LiveConversationSchema = Schema.Struct({
  ...viewFields,
  tabs: Schema.Array(LiveTabSchema),
  /** In a cluster, the host (runner address) that holds this errand open, when it is another one. */
  heldBy: Schema.optional(Schema.String),
}).annotations({ identifier: 'LiveConversation' })

/** The inspector's switch (V3), when the host has one. */
export const LiveInspectorSchema = Schema.Struct({
  on: Schema.Boolean,
  /** How to open it, in words (and a URL when there is one). */
  howToOpen: Schema.String,
  url: Schema.optional(Schema.String),
}).annotations({ identifier: 'LiveInspector' })

/**
 * A question an errand is waiting on (P4): the card "Allow lends your sign-in to this task" with Allow and
 * Deny — the boundary's `Question`, as `/v1/person/questions` lists it.
 */
export const LiveQuestionSchema = Question

/** Everything the page shows. */
export const LiveStateSchema = Schema.Struct({
  /** ms since the epoch, when this state was read. */
  at: Schema.Number,
  capacity: CapacitySchema,
  conversations: Schema.Array(LiveConversationSchema),
  /** The person's own browser (main context): its tabs. */
  main: Schema.Struct({ tabs: Schema.Array(LiveTabSchema) }),
  health: Schema.Array(HealthMessageSchema),
  inspector: Schema.NullOr(LiveInspectorSchema),
  /** Questions errands are waiting on, oldest first (absent: the host asks none). */
  questions: Schema.optional(Schema.Array(LiveQuestionSchema)),
}).annotations({ identifier: 'LiveState' })

/** What an action answers: the state after it. @example { state } */
export const StateAnswer = Schema.Struct({ state: LiveStateSchema })
