import { errandMachine } from '@errands/machines'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createMachine, fromPromise, setup } from 'xstate'
import { markdownBlock, MARKERS, statechartOf, withBlock } from './statechart/mermaid.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8')

describe("the errand machine's state chart in docs (generated, never drawn)", () => {
  const chart = statechartOf(errandMachine)

  it(
    'docs/errand-machine.md and docs/errand-machine.mmd hold the chart of the machine as it is now (else: npx tsx ' +
      'scripts/statechart.ts)',
    () => {
      expect(read('docs/errand-machine.mmd')).toBe(chart.mermaid)
      const doc = read('docs/errand-machine.md')
      expect(doc).toContain(markdownBlock(chart))
      expect(withBlock(doc, markdownBlock(chart))).toBe(doc)
    },
  )

  it('shows every state, every event the machine handles, every invoked actor and every named delay', () => {
    const text = chart.mermaid + chart.table
    const walk = (node: {
      path: string[]
      states: Record<string, unknown>
      invoke: Array<{ id: string }>
      after: Array<{ delay: unknown }>
      transitions: Map<string, unknown>
    }): void => {
      if (node.path.length > 0) expect(chart.table).toContain(`| \`${node.path.join('.')}\` |`)
      if (node.path.length > 0 && Object.keys(node.states).length === 0)
        expect(chart.mermaid).toMatch(new RegExp(`state "${node.path.at(-1)}" as ${node.path.join('_')}\\n`))
      for (const i of node.invoke) expect(text).toContain(i.id)
      for (const a of node.after) expect(text).toContain(String(a.delay))
      for (const event of node.transitions.keys()) {
        if (!event.startsWith('xstate.')) expect(text, event).toContain(event)
      }
      for (const child of Object.values(node.states)) walk(child as never)
    }
    walk(errandMachine.root as never)
    expect(chart.mermaid).toContain(
      'active --> parking : task.changed [isParkingStatus], errand.park [isUndriven], errand.evict [isIdle], ' +
        'system.shutdown',
    )
    expect(chart.mermaid).toContain('closed --> [*]')
  })
})

describe('statechartOf', () => {
  it(
    'draws nested and parallel regions, guards, eventless and delayed transitions, done/error of invoked ' + 'actors',
    () => {
      const m = setup({
        actors: { load: fromPromise(async () => 1) },
        delays: { pause: 100 },
        guards: { ok: () => true },
      }).createMachine({
        id: 'm',
        initial: 'idle',
        on: { ping: { actions: [] } },
        states: {
          idle: { always: [{ guard: 'ok', target: 'busy' }], on: { go: 'both' } },
          busy: { invoke: { src: 'load', onDone: 'both', onError: '#m.both.left.b' } },
          both: {
            type: 'parallel',
            states: {
              left: { initial: 'a', states: { a: { after: { pause: 'b' } }, b: { on: { stop: '#m.done' } } } },
              right: { initial: 'c', states: { c: {} } },
            },
          },
          done: { type: 'final' },
        },
      })
      expect(statechartOf(m).mermaid).toBe(
        [
          'stateDiagram-v2',
          '  [*] --> idle',
          '  state "idle" as idle',
          '  state "busy" as busy',
          '  state both {',
          '    state both_left {',
          '      [*] --> both_left_a',
          '      state "a" as both_left_a',
          '      state "b" as both_left_b',
          '      both_left_a --> both_left_b : after pause',
          '    }',
          '    --',
          '    state both_right {',
          '      [*] --> both_right_c',
          '      state "c" as both_right_c',
          '    }',
          '  }',
          '  state "done" as done',
          '  done --> [*]',
          '  idle --> busy : always [ok]',
          '  idle --> both : go',
          '  busy --> both : done: 0.m.busy, error: 0.m.busy (to both.left.b)',
          '  both --> done : stop (from both.left.b)',
          '',
        ].join('\n'),
      )
      expect(statechartOf(m).table).toContain('| `busy` | atomic |  | invoke: load (as 0.m.busy) |  |')
      expect(statechartOf(m).table).toContain('| (every state) |  |  |  | ping |')
    },
  )

  it('a changed machine gives a changed chart (so a stale doc fails the test above)', () => {
    const a = createMachine({ id: 'x', initial: 'one', states: { one: { on: { next: 'two' } }, two: {} } })
    const b = createMachine({ id: 'x', initial: 'one', states: { one: { on: { next: 'two', back: 'one' } }, two: {} } })
    expect(statechartOf(a).mermaid).not.toBe(statechartOf(b).mermaid)
    expect(statechartOf(b).mermaid).toContain('one --> one : back')
  })

  it('puts the block between its markers, replacing an old one and keeping the rest', () => {
    const block = markdownBlock(statechartOf(createMachine({ id: 'x', initial: 'one', states: { one: {} } })))
    const first = withBlock('# Title\n\ntext\n', block)
    expect(first).toBe(`# Title\n\ntext\n\n${block}\n`)
    const old = first.replace('[*] --> one', '[*] --> stale')
    expect(withBlock(`${old}after\n`, block)).toBe(`${first}after\n`)
    expect(block.startsWith(MARKERS.begin)).toBe(true)
  })
})
