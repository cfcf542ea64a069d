import { Schema } from 'effect'

/**
 * The few ways a browser call fails (STYLE §6): a deadline passed, the target is gone, or the
 * browser crashed. Adapters map every driver error onto one of these.
 *
 * @example
 * effect.pipe(Effect.catchTag('RuntimeError', (e) => e.reason === 'crashed' ? heal : Effect.fail(e)))
 */
export class RuntimeError extends Schema.TaggedError<RuntimeError>()('RuntimeError', {
  reason: Schema.Literal('timeout', 'target-closed', 'crashed', 'unavailable', 'invalid'),
  message: Schema.String,
  /** A navigation the containment policy refused (`invalid`): the guard's rule that refused it (G2). */
  rule: Schema.optional(Schema.String),
}) {}

/** The context id is not known to this runtime (closed, or never opened). */
export class ContextNotFound extends Schema.TaggedError<ContextNotFound>()('ContextNotFound', {
  reason: Schema.Literal('unknown-context'),
  contextId: Schema.String,
  message: Schema.String,
}) {}
