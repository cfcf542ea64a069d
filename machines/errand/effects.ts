/**
 * The machine's side of its five effects: the defaults that fail loudly until the supervisor (or
 * a test) provides them, the input each is given, and what the machine keeps of what they return
 * or reject with.
 */
import { fromPromise } from 'xstate'
import type { EffectInput, ErrandContext, ErrandFailure } from './types.ts'

/**
 * Effects are named in the machine's `setup` and provided from outside (`machine.provide({ actors })`),
 * by the supervisor or a test. The defaults fail loudly so a missing implementation is never silent.
 *
 * @example
 * setup({ actors: { openContext: notProvided<EffectInput, OpenedContext>('openContext') } })
 */
export const notProvided = <I, O>(name: string) =>
  fromPromise<O, I>(() => Promise.reject(new Error(`the errand machine's "${name}" effect was not provided`)))

/**
 * Turns whatever an effect rejected with into the few fields the machine keeps (no secrets).
 *
 * @example
 * toFailure(new ContextNotFound({ reason: 'unknown-context', … })) // { tag: 'ContextNotFound', reason:
 * 'unknown-context', message: '…' }
 */
export const toFailure = (error: unknown): ErrandFailure => {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>
  const str = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback)
  return {
    tag: str(e._tag, error instanceof Error ? error.name : 'Error'),
    reason: str(e.reason, 'unknown'),
    message: str(e.message, String(error)),
  }
}

/** What every effect is told about the errand. @example effectInput(context).contextId */
export const effectInput = (context: ErrandContext): EffectInput => ({
  errandId: context.errandId,
  conversationId: context.conversationId,
  kind: context.kind,
  reason: context.reason,
  lentSites: context.lentSites,
  contextId: context.contextId,
})

/**
 * The output of the effect whose done event a named action handles: actions named in `setup` see
 * the machine's own event type, not the done event of the actor invoked where they are used.
 *
 * @example
 * assign({ contextId: ({ event }) => outputOf<OpenedContext>(event).contextId })
 */
export const outputOf = <T>(event: { type: string }): T => (event as { output?: T }).output as T

/** What the effect whose error event is being handled rejected with. @example toFailure(errorOf(event)) */
export const errorOf = (event: { type: string }): unknown => (event as { error?: unknown }).error
