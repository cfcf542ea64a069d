import { cookie } from '@errands/runtime'
import {
  journalRecorder,
  parseJournal,
  replay,
  formatTrace,
  services,
  testSupervisor,
  defaultSettings,
  type TraceLine,
} from '@errands/supervisor'
import { Effect, Fiber, TestClock, TestContext } from 'effect'
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { replayFile } from './replay.ts'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..')
const journals = fs
  .readdirSync(path.join(root, 'journals'))
  .filter((f) => f.endsWith('.jsonl'))
  .sort()

describe('golden journals (T1)', () => {
  it('has journals that cover park, heal, the cap, a person at the wheel, waiting for the person and freezing', () => {
    expect(journals).toEqual(['asking.jsonl', 'cap.jsonl', 'frozen.jsonl', 'heal.jsonl', 'park.jsonl', 'wheel.jsonl'])
  })

  it(
    'frozen.jsonl: idleness freezes an errand and a drive thaws it on the same context; the cap seals a frozen ' +
      'errand; the second idle seals the others (C2, C4)',
    () => {
      const trace = fs.readFileSync(path.join(root, 'journals/frozen.trace'), 'utf8')
      expect(trace).toContain('60000\ta\tfreezing\n60000\ta\tfrozen\n90000\ta\tthawing\n')
      expect(trace).toMatch(/^90000\ta\tactive\(asking=none,driver=driven,/m)
      expect(trace.match(/^([0-9]+)\tb\tfreezing$/m)?.[1]).toBe('165000') // not while driven, till 92 s
      expect(trace).toContain('200000\ta\tparking\n200000\ta\tparked\n200000\tc\tseeding\n')
      expect(trace).toContain('405000\tb\tparked\n') // 300 s after its last use, at the next sweep
    },
  )

  it(
    'asking.jsonl: an errand waiting for the person is not parked for idleness, the cap may park it, the ask waits ' +
      'across the park and ends with the hand-back; the journal holds no reason or note (P3, P4, C2)',
    () => {
      const trace = fs.readFileSync(path.join(root, 'journals/asking.trace'), 'utf8')
      const journal = fs.readFileSync(path.join(root, 'journals/asking.jsonl'), 'utf8')
      expect(trace).toMatch(/^1000\ta\tactive\(asking=waiting,/m)
      expect(trace).not.toMatch(/^[0-9]{5}\ta\tparking/m) // not for idleness between 61 s and 100 s
      expect(trace).toContain('101000\ta\tparked\n')
      expect(trace).toMatch(/^103000\ta\tactive\(asking=waiting,/m)
      expect(trace).toMatch(/^105000\ta\tactive\(asking=none,.*wheel=agents\)\n/m)
      expect(trace).toContain('165000\ta\tfrozen\n') // idle again after the answer: frozen first (C4)
      expect(journal).not.toMatch(/reason|note|cookie/)
    },
  )

  it(
    'wheel.jsonl: a person at the wheel is parked neither for room, nor on request, nor for idleness; after the ' +
      'hand-back the idle sweep parks it (C2, P1, P2)',
    () => {
      const trace = fs.readFileSync(path.join(root, 'journals/wheel.trace'), 'utf8')
      expect(trace).toContain('2000\tb\trefused(AllBusy)\n')
      expect(trace).not.toMatch(/^(2500|200000)\ta\tparking/m)
      expect(trace).toMatch(/^201000\ta\tactive\(.*wheel=agents\)\n/m)
      expect(trace).toMatch(/^270000\ta\tfrozen\n/m)
    },
  )

  it.each(journals)('%s replays to its golden trace, byte for byte, twice', async (name) => {
    const file = path.join(root, 'journals', name)
    const golden = fs.readFileSync(file.replace(/\.jsonl$/, '.trace'), 'utf8')
    const first = await Effect.runPromise(replayFile(file))
    const second = await Effect.runPromise(replayFile(file))
    expect(first).toBe(golden)
    expect(second).toBe(first)
  })

  it('the CLI prints the same trace', () => {
    const out = execFileSync(
      path.join(root, 'node_modules/.bin/tsx'),
      [path.join(root, 'packages/cli/src/main.ts'), 'replay', path.join(root, 'journals/heal.jsonl')],
      { encoding: 'utf8' },
    )
    expect(out).toBe(fs.readFileSync(path.join(root, 'journals/heal.trace'), 'utf8'))
  }, 30_000)

  it('covers what it claims: parking, healing with backoff and giving up, all-busy refusal, idle freezing', () => {
    const all = journals
      .map((j) => fs.readFileSync(path.join(root, 'journals', j.replace('.jsonl', '.trace')), 'utf8'))
      .join('')
    for (const state of [
      'parked',
      'resuming',
      'healing.waiting',
      'healing.restoring',
      'healing.cooling',
      'refused(AllBusy)',
      'closed',
      'frozen',
      'thawing',
    ]) {
      expect(all).toContain(`\t${state}\n`)
    }
  })
})

/** Runs `run` on a test supervisor with `maxErrands`, recording its journal and its live trace. */
const recordRun = async <E>(
  maxErrands: number,
  run: Effect.Effect<void, E, Effect.Effect.Context<typeof services>>,
) => {
  const live: TraceLine[] = []
  const settings = defaultSettings({ maxErrands, idleMs: 60_000, dataDir: '/nonexistent' })
  const recorder = journalRecorder(settings, 0)
  await Effect.runPromise(
    run.pipe(
      Effect.scoped,
      Effect.provide(testSupervisor(settings, { journal: recorder.record, trace: (l) => void live.push(l) })),
      Effect.provide(TestContext.TestContext),
    ),
  )
  return { live, recorder }
}

describe('recording (T1)', () => {
  it('a run recorded as a journal replays to the trace the run itself produced', async () => {
    const { live, recorder } = await recordRun(
      2,
      Effect.gen(function* () {
        const { supervisor, memory } = yield* services
        const a = yield* supervisor.open({ id: 'a', kind: 'task' })
        memory.visit(a.contextId, 'https://shop.test/a', { setCookies: [cookie('basket', 'secret', 'shop.test')] })
        yield* TestClock.adjust(4_000)
        yield* supervisor.settle
        yield* supervisor.open({ id: 'b', kind: 'task' })
        yield* supervisor.drive('b')
        yield* TestClock.adjust(1_000)
        yield* supervisor.open({ id: 'c', kind: 'task' })
        memory.crashBrowser()
        yield* supervisor.settle
        yield* supervisor.undrive('b')
        yield* supervisor.use('c', () => Effect.void)
        yield* supervisor.taskChanged('b', 'failed')
        yield* TestClock.adjust(90_000)
        yield* supervisor.settle
      }),
    )
    const journal = await Effect.runPromise(parseJournal(recorder.text()))
    expect(journal.some((e) => e.op === 'browser.crashed')).toBe(true)
    expect(journal.some((e) => e.op === 'page.loaded')).toBe(true)
    const replayed = await Effect.runPromise(replay(journal))
    expect(formatTrace(replayed)).toBe(formatTrace(live))
    // L7: a journal holds ids, times and states — never a cookie value or URL.
    expect(recorder.text()).not.toContain('secret')
    expect(recorder.text()).not.toContain('shop.test')
  })

  it(
    'a run with a request for help and a sign-in question replays to its own trace; the journal holds neither the ' +
      'reason nor the note (P3, P4, P5)',
    async () => {
      const { live, recorder } = await recordRun(
        1,
        Effect.gen(function* () {
          const { supervisor } = yield* services
          yield* supervisor.open({ id: 'a', kind: 'task' })
          const help = yield* Effect.fork(supervisor.askForHelp('a', 'the secret reason', 300_000))
          yield* TestClock.adjust(90_000) // past the idle limit: still open, it waits for the person
          yield* supervisor.settle
          yield* supervisor.takeWheel('a')
          yield* supervisor.handBack('a', 'the secret note')
          yield* Fiber.join(help)
          yield* supervisor.asked('a', { id: 'q1', ask: 'sign-in', site: 'shop.example' })
          yield* supervisor.open({ id: 'b', kind: 'task' }) // the cap parks the waiting errand
          yield* supervisor.settle
          yield* supervisor.answered('a', 'q1', 'timeout')
          const late = yield* Effect.fork(supervisor.askForHelp('b', 'again', 1_000))
          yield* TestClock.adjust(1_000)
          yield* Fiber.join(late)
          yield* TestClock.adjust(90_000)
          yield* supervisor.settle
        }),
      )
      const journal = await Effect.runPromise(parseJournal(recorder.text()))
      expect(
        journal.filter((e) => e.op === 'question.answered').map((e) => (e.op === 'question.answered' ? e.outcome : '')),
      ).toEqual(['handed-back', 'timeout', 'timeout'])
      expect(formatTrace(live)).toContain('asking=waiting')
      expect(formatTrace(await Effect.runPromise(replay(journal)))).toBe(formatTrace(live))
      expect(recorder.text()).not.toContain('secret')
    },
  )

  it.each([
    ['not JSON', '{"t":0,"op":"settings","maxErrands":2,"idleMs":60000,"snapshotDebounceMs":3000}\n{nope', 'not-json'],
    ['no settings', '{"t":0,"op":"shutdown"}', 'no-settings'],
    [
      'an unknown op',
      '{"t":0,"op":"settings","maxErrands":2,"idleMs":60000,"snapshotDebounceMs":3000}\n{"t":1,"op":"explode"}',
      'invalid-entry',
    ],
    [
      'an extra field',
      '{"t":0,"op":"settings","maxErrands":2,"idleMs":60000,"snapshotDebounceMs":3000}\n{"t":1,"op":"shutdown","x":1}',
      'invalid-entry',
    ],
    [
      'a question that carries its reason',
      '{"t":0,"op":"settings","maxErrands":2,"idleMs":60000,"snapshotDebounceMs":3000}\n' +
        '{"t":1,"op":"question.asked","conversationId":"a","id":"h1","ask":"help","reason":"x"}',
      'invalid-entry',
    ],
    [
      'an answer with a note',
      '{"t":0,"op":"settings","maxErrands":2,"idleMs":60000,"snapshotDebounceMs":3000}\n' +
        '{"t":1,"op":"question.answered","conversationId":"a","id":"h1","outcome":"handed-back","note":"x"}',
      'invalid-entry',
    ],
    [
      'an unknown outcome',
      '{"t":0,"op":"settings","maxErrands":2,"idleMs":60000,"snapshotDebounceMs":3000}\n' +
        '{"t":1,"op":"question.answered","conversationId":"a","id":"h1","outcome":"maybe"}',
      'invalid-entry',
    ],
    [
      'time going back',
      '{"t":5,"op":"settings","maxErrands":2,"idleMs":60000,"snapshotDebounceMs":3000}\n{"t":1,"op":"shutdown"}',
      'time-goes-back',
    ],
  ])('a journal with %s is a typed error naming the line', async (_, text, reason) => {
    const result = await Effect.runPromise(Effect.either(parseJournal(text)))
    expect(result._tag === 'Left' && result.left.reason).toBe(reason)
  })
})
