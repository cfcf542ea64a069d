/**
 * The words of the boundary that faces send out as JSON, as Schemas: an errand's view, the engine's capacity and
 * a health message. Every front that answers them (the host's `/v1/person/sessions`, the live view's state)
 * encodes with these, so the wire says what `ErrandView`, `Capacity` and `HealthMessage` say, in one place.
 *
 * @example
 * Schema.encodeUnknownSync(ErrandViewSchema)(view)
 */
import { Schema } from 'effect'

/** One conversation's errand as the supervisor shows it (no secrets: names, ids, times); see `ErrandView`. */
export const ErrandViewSchema = Schema.Struct({
  conversationId: Schema.String,
  kind: Schema.Literal('task', 'chat'),
  reason: Schema.Literal('task', 'helper', 'own-browser', 'main'),
  state: Schema.String,
  detail: Schema.String,
  driven: Schema.Boolean,
  watched: Schema.Boolean,
  lastUsedAt: Schema.Number,
  parkedAt: Schema.NullOr(Schema.Number),
  lentSites: Schema.Array(Schema.String),
  contextId: Schema.NullOr(Schema.String),
  lastError: Schema.NullOr(Schema.String),
  parent: Schema.optional(Schema.String),
  /** Present (true) while a person has the wheel (P1). */
  personDriving: Schema.optional(Schema.Literal(true)),
  /** The oldest pending request for help (P3), while an agent waits. */
  help: Schema.optional(Schema.Struct({ reason: Schema.String, askedAt: Schema.Number, expiresAt: Schema.Number })),
  /** Present while an agent waits for the person (P3, P4): the kinds of its open asks, oldest first. */
  waiting: Schema.optional(Schema.Array(Schema.Literal('help', 'sign-in'))),
}).annotations({ identifier: 'ErrandView' })

/** Open, parked and limit of the engine's errands (H3); see `Capacity`. */
export const CapacitySchema = Schema.Struct({
  open: Schema.Number,
  parked: Schema.Number,
  frozen: Schema.Number,
  limit: Schema.Number,
  personDriving: Schema.Number,
  waitingForPerson: Schema.Number,
}).annotations({ identifier: 'Capacity' })

/** One health message in words (H3); see `HealthMessage`. */
export const HealthMessageSchema = Schema.Struct({
  at: Schema.Number,
  level: Schema.Literal('info', 'warning'),
  text: Schema.String,
  conversationId: Schema.optional(Schema.String),
}).annotations({ identifier: 'HealthMessage' })
