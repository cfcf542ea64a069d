/**
 * What the errand machine reads from its events: why an errand parks. When they happened (the
 * supervisor's clock, carried in `at`) is `at` of ../timed.ts, which the lease machine reads too.
 */
import type { ErrandEvent, ParkCause } from './types.ts'

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
