/**
 * What every machine event has in common: the time it happened, in `at`, on the clock of whoever
 * sent it (the supervisor's, the lease service's). Machines read no clock of their own (STYLE §1),
 * so `at` is how they know the time, and a replayed journal decides the same way.
 */

/**
 * An event of `Type` that carries its time in `at`, with `Fields` besides. `Timed<'a' | 'b'>` is
 * one event per type (a union), so a machine still narrows an event by its `type`.
 *
 * @example
 * type PageEvent = Timed<'page.loaded' | 'page.closed'> | Timed<'page.crashed', { readonly reason: string }>
 * const e: PageEvent = { type: 'page.crashed', reason: 'oom', at: 1_000 }
 */
export type Timed<Type extends string, Fields = unknown> = Type extends string
  ? { readonly type: Type; readonly at: number } & Fields
  : never

/**
 * The sender's time an event carries, if it carries one (xstate's own events, such as a delay
 * falling due or an actor's done event, carry none).
 *
 * @example
 * at({ type: 'errand.used', at: 10 }) // 10
 * at({ type: 'xstate.after.idle' }) // undefined
 */
export const at = (event: { readonly type: string }): number | undefined =>
  'at' in event && typeof event.at === 'number' ? event.at : undefined
