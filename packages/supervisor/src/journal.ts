import { MemoryRuntimeTag, memoryRuntimeLayer } from '@errands/runtime'
import { SealedStore } from '@errands/store'
import { Effect, Layer, ParseResult, Schema, TestClock, TestContext } from 'effect'
import { defaultSettings, type SupervisorSettings } from './config.ts'
import { makeSupervisor, type SupervisorShape } from './Supervisor.ts'
import type { JournalEntry, TraceLine } from './types.ts'

const Id = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))
const T = Schema.Number.pipe(Schema.finite(), Schema.nonNegative())
const ConversationId = Schema.Struct({ t: T, conversationId: Id })
/** A site name (a host name is at most 253 characters). */
const Site = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(253))

/** The settings line that opens every journal, so a replay uses the cap and delays of the run. */
export const JournalSettings = Schema.Struct({
  t: T,
  op: Schema.Literal('settings'),
  maxErrands: Schema.Int.pipe(Schema.between(1, 32)),
  idleMs: Schema.Int.pipe(Schema.positive()),
  /** The second idle, after which a frozen errand is sealed (C4); older journals have none: the default. */
  parkIdleMs: Schema.optional(Schema.Int.pipe(Schema.positive())),
  snapshotDebounceMs: Schema.Int.pipe(Schema.positive()),
})
export type JournalSettings = typeof JournalSettings.Type

/** One journal line: the settings header or one input (see {@link JournalEntry}). */
export const JournalLine = Schema.Union(
  JournalSettings,
  Schema.Struct({
    t: T,
    op: Schema.Literal('open'),
    conversation: Schema.Struct({
      id: Id,
      kind: Schema.Literal('task', 'chat'),
      helper: Schema.optional(Schema.Boolean),
      parent: Schema.optional(Id),
    }),
  }),
  Schema.extend(
    ConversationId,
    Schema.Struct({
      op: Schema.Literal(
        'drive',
        'undrive',
        'watch',
        'unwatch',
        'chat.deleted',
        'park',
        'resume',
        'release',
        'page.loaded',
        'context.crashed',
        'wheel.take',
        'wheel.handback',
      ),
    }),
  ),
  Schema.extend(
    ConversationId,
    Schema.Struct({
      op: Schema.Literal('task'),
      status: Schema.Literal('running', 'done', 'unverified', 'stopped', 'interrupted', 'failed'),
    }),
  ),
  Schema.extend(ConversationId, Schema.Struct({ op: Schema.Literal('own-browser'), on: Schema.Boolean })),
  Schema.extend(
    ConversationId,
    Schema.Struct({
      op: Schema.Literal('question.asked'),
      id: Id,
      ask: Schema.Literal('help', 'sign-in'),
      site: Schema.optional(Site),
    }),
  ),
  Schema.extend(
    ConversationId,
    Schema.Struct({
      op: Schema.Literal('question.answered'),
      id: Id,
      outcome: Schema.Literal('allow', 'deny', 'handed-back', 'timeout', 'withdrawn'),
    }),
  ),
  Schema.Struct({ t: T, op: Schema.Literal('browser.crashed', 'shutdown', 'advance') }),
)
export type JournalLine = typeof JournalLine.Type

/** A journal that cannot be read: which line, and why. */
export class JournalError extends Schema.TaggedError<JournalError>()('JournalError', {
  reason: Schema.Literal('not-json', 'invalid-entry', 'no-settings', 'time-goes-back'),
  line: Schema.Number,
  message: Schema.String,
}) {}

/**
 * Reads a JSON-lines journal. The first line must be the settings; times never go back.
 *
 * @example
 * const lines = yield* parseJournal(fs.readFileSync('journals/park.jsonl', 'utf8'))
 */
export const parseJournal = (text: string): Effect.Effect<ReadonlyArray<JournalLine>, JournalError> =>
  Effect.gen(function* () {
    const out: JournalLine[] = []
    const rows = text.split('\n')
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!.trim()
      if (row === '') continue
      const json = yield* Effect.try({
        try: () => JSON.parse(row) as unknown,
        catch: () => new JournalError({ reason: 'not-json', line: i + 1, message: `line ${i + 1} is not JSON` }),
      })
      const entry = yield* Schema.decodeUnknown(JournalLine, { onExcessProperty: 'error' })(json).pipe(
        Effect.mapError(
          (e) =>
            new JournalError({
              reason: 'invalid-entry',
              line: i + 1,
              message: `line ${i + 1}: ${ParseResult.TreeFormatter.formatErrorSync(e)}`,
            }),
        ),
      )
      if (out.length === 0 && entry.op !== 'settings') {
        return yield* new JournalError({
          reason: 'no-settings',
          line: i + 1,
          message: 'a journal starts with its settings line',
        })
      }
      if (out.length > 0 && entry.t < out[out.length - 1]!.t) {
        return yield* new JournalError({
          reason: 'time-goes-back',
          line: i + 1,
          message: `line ${i + 1} is earlier than the line before it`,
        })
      }
      out.push(entry)
    }
    if (out.length === 0)
      return yield* new JournalError({ reason: 'no-settings', line: 0, message: 'the journal is empty' })
    return out
  })

/**
 * A journal sink that keeps lines in memory; `text()` gives the JSON-lines file.
 *
 * @example
 * const recorder = journalRecorder(settings, 0)
 * makeSupervisor({ settings, journal: recorder.record })
 */
export const journalRecorder = (settings: SupervisorSettings, startedAt: number) => {
  const lines: JournalLine[] = [
    {
      t: startedAt,
      op: 'settings',
      maxErrands: settings.maxErrands,
      idleMs: settings.idleMs,
      parkIdleMs: settings.parkIdleMs,
      snapshotDebounceMs: settings.snapshotDebounceMs,
    },
  ]
  return {
    record: (entry: JournalEntry) => void lines.push(entry as JournalLine),
    lines: () => [...lines],
    text: () => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
  }
}

/** One trace line as text: `t conversation state`, the golden files' format. */
export const formatTrace = (lines: ReadonlyArray<TraceLine>): string =>
  `${lines.map((l) => `${l.t}\t${l.conversationId}\t${l.state}`).join('\n')}\n`

const apply = (
  supervisor: SupervisorShape,
  entry: JournalLine,
  crash: { context: (id: string) => void; browser: () => void },
) => {
  switch (entry.op) {
    case 'settings':
    case 'advance':
      return Effect.void
    case 'open':
      return supervisor.open(entry.conversation)
    case 'drive':
      return supervisor.drive(entry.conversationId)
    case 'undrive':
      return supervisor.undrive(entry.conversationId)
    case 'watch':
      return supervisor.watch(entry.conversationId)
    case 'unwatch':
      return supervisor.unwatch(entry.conversationId)
    case 'task':
      return supervisor.taskChanged(entry.conversationId, entry.status)
    case 'chat.deleted':
      return supervisor.chatDeleted(entry.conversationId)
    case 'own-browser':
      return supervisor.setOwnBrowser(entry.conversationId, entry.on)
    case 'park':
      return supervisor.park(entry.conversationId)
    case 'resume':
      return supervisor.resume(entry.conversationId)
    case 'release':
      return supervisor.release(entry.conversationId)
    case 'page.loaded':
      return supervisor.pageLoaded(entry.conversationId)
    case 'wheel.take':
      return supervisor.takeWheel(entry.conversationId)
    case 'wheel.handback':
      return supervisor.handBack(entry.conversationId)
    case 'question.asked':
      return supervisor.asked(entry.conversationId, { id: entry.id, ask: entry.ask, site: entry.site })
    case 'question.answered':
      return supervisor.answered(entry.conversationId, entry.id, entry.outcome)
    case 'context.crashed':
      return Effect.sync(() => crash.context(entry.conversationId))
    case 'browser.crashed':
      return Effect.sync(crash.browser)
    case 'shutdown':
      return supervisor.shutdown
  }
}

/**
 * Replays a journal on the deterministic runtime with a simulated clock and returns the state
 * trace (T1). Refused inputs (e.g. all slots busy) appear in the trace as `refused(<Tag>)`.
 * The same journal always gives the same trace, byte for byte.
 *
 * @example
 * const trace = yield* replay(yield* parseJournal(text))
 * console.log(formatTrace(trace))
 */
export const replay = (journal: ReadonlyArray<JournalLine>): Effect.Effect<ReadonlyArray<TraceLine>> =>
  Effect.gen(function* () {
    const header = journal[0]
    if (header === undefined || header.op !== 'settings') return []
    yield* TestClock.setTime(header.t)
    const trace: TraceLine[] = []
    const settings = defaultSettings({
      maxErrands: header.maxErrands,
      idleMs: header.idleMs,
      ...(header.parkIdleMs === undefined ? {} : { parkIdleMs: header.parkIdleMs }),
      snapshotDebounceMs: header.snapshotDebounceMs,
      dataDir: '/nonexistent',
    })
    yield* Effect.scoped(
      Effect.gen(function* () {
        const supervisor = yield* makeSupervisor({ settings, trace: (l) => void trace.push(l) })
        const memory = yield* MemoryRuntimeTag
        const crash = {
          context: (id: string) => {
            const contextId = supervisor.contextOf(id)
            if (contextId !== undefined) memory.crashContext(contextId)
          },
          browser: () => memory.crashBrowser(),
        }
        let clock = header.t
        for (const entry of journal.slice(1)) {
          if (entry.t > clock) {
            yield* TestClock.adjust(entry.t - clock)
            clock = entry.t
            yield* supervisor.settle
          }
          const id =
            'conversation' in entry ? entry.conversation.id : 'conversationId' in entry ? entry.conversationId : '*'
          yield* Effect.catchAll(apply(supervisor, entry, crash), (e) =>
            Effect.sync(() => void trace.push({ t: clock, conversationId: id, state: `refused(${e._tag})` })),
          )
          yield* supervisor.settle
        }
      }).pipe(Effect.provide(Layer.merge(memoryRuntimeLayer, SealedStore.layerMemory))),
    ).pipe(Effect.orDie) // the memory store never fails to open
    return trace
  }).pipe(Effect.provide(TestContext.TestContext))
