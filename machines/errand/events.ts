/**
 * What the errand machine reads from its events: when they happened (the supervisor's clock,
 * carried in `at`; the machine reads no clock) and why an errand parks.
 */
import type { ErrandEvent, ParkCause } from './types.ts'

/** The supervisor-clock time an event carries, if it carries one. @example at({ type: 'errand.used', at: 10 }) // 10 */
export const at = (event: ErrandEvent | { type: string }) => ('at' in event && typeof event.at === 'number' ? event.at : undefined)

/**
 * Why an event parks the errand.
 *
 * @example
 * parkCauseOf({ type: 'task.changed', status: 'failed', at: 0 }) // 'failed'
 */
export function parkCauseOf(event: ErrandEvent): ParkCause {
  switch (event.type) {
    case 'task.changed':
      return event.status === 'failed' ? 'failed' : 'interrupted'
    case 'errand.evict':
      return event.cause
    case 'system.shutdown':
      return 'shutdown'
    default:
      return 'requested'
  }
}
