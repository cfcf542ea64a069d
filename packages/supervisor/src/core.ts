/**
 * What the parts of one supervisor share (actors, admission, driving, settling, runtime events,
 * adoption and the operations): its services, its settings, the book of conversations and the
 * clock. Built once by `makeSupervisor`; every part reads the same maps.
 */
import type { ContextId, RuntimeShape } from '@errands/runtime'
import type { SealedStoreShape } from '@errands/store'
import type { Effect, Fiber, Runtime as EffectRuntime } from 'effect'
import type { SnapshotBook } from './amendments.ts'
import type { SupervisorSettings } from './config.ts'
import type { HealthLog, QuestionBook } from '@errands/sessions'
import type { ErrandView } from '@errands/sessions'
import type { JournalEntry, SupervisorOptions } from './types.ts'
import type { UpstreamBook } from './upstream.ts'
import type { Entry } from './views.ts'

/** The state and services one supervisor's parts share. Internal: `index.ts` does not export it. */
export interface SupervisorCore {
  readonly runtime: RuntimeShape
  readonly store: SealedStoreShape
  readonly effectRuntime: EffectRuntime.Runtime<never>
  readonly options: SupervisorOptions
  readonly settings: SupervisorSettings
  readonly health: HealthLog
  /** The questions waiting for the person (P4): the one book the boundary's question verbs read and answer. */
  readonly questions: QuestionBook
  /** Every known conversation, by id. */
  readonly entries: Map<string, Entry>
  /** The entry whose errand holds each context, for runtime events. */
  readonly byContext: Map<ContextId, Entry>
  readonly snapshots: SnapshotBook
  readonly proxies: UpstreamBook
  readonly changeListeners: Set<(view: ErrandView) => void>
  /** Who hears each hand-back and its note (`WheelShape.onHandBack`). */
  readonly handBackListeners: Set<(conversationId: string, note: string | null) => void>
  /** One admission at a time, so the cap on open errands holds (C2). */
  readonly admission: Effect.Semaphore
  /** Heals started because someone watches a crashed errand; `settle` waits for them. */
  readonly pendingHeals: Set<Fiber.RuntimeFiber<void>>
  /** The Effect clock's time, in milliseconds. */
  readonly now: () => number
  readonly journal: (entry: JournalEntry) => void
  /** Set once by `shutdown`: no errand opens, resumes or heals after it. */
  shuttingDown: boolean
}
