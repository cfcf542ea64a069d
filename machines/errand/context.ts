/**
 * The errand's context as its actor starts: from the supervisor's input, with the defaults of
 * the snapshot debounce and the heal budget (docs/faults.md).
 */
import type { ErrandContext, ErrandInput } from './types.ts'

/**
 * The starting context of an errand: fresh, or parked when the input says when it parked (E5).
 *
 * @example
 * initialContext({ errandId: 'e1', conversationId: 'c1', kind: 'task', reason: 'task', now: 0 }).maxHeals // 3
 */
export const initialContext = (input: ErrandInput): ErrandContext => ({
  errandId: input.errandId,
  conversationId: input.conversationId,
  kind: input.kind,
  reason: input.reason,
  contextId: null,
  drivers: 0,
  watchers: 0,
  lastUsedAt: input.parkedAt ?? input.now,
  snapshotAt: null,
  parkedAt: input.parkedAt ?? null,
  parkCause: input.parkedAt === undefined ? null : 'shutdown',
  frozenAt: null,
  heals: 0,
  lastCrashAt: null,
  lentSites: [...(input.lentSites ?? [])],
  wheel: 'agents',
  asks: [],
  lastError: null,
  pending: null,
  snapshotDebounceMs: input.snapshotDebounceMs ?? 3_000,
  maxHeals: input.maxHeals ?? 3,
  healBackoffMs: input.healBackoffMs ?? 1_000,
  healWindowMs: input.healWindowMs ?? 300_000,
})
