/**
 * The errand machine's state chart, generated from the machine definition — never drawn by hand.
 * Walks an XState v5 machine's state nodes (nested and parallel regions, transitions with their
 * event names and guards, eventless transitions, invoked actors, named delays) and renders a
 * Mermaid `stateDiagram-v2`, plus a table of what each state runs and handles without leaving.
 *
 * Mermaid cannot draw an edge between inner states of different composite states, so such an
 * edge is drawn between the outermost states that differ, and its label names the inner source
 * or target (`from deciding`, `to waiting`).
 *
 * @example
 * import { errandMachine } from '@errands/machines'
 * const chart = statechartOf(errandMachine)
 * chart.mermaid // 'stateDiagram-v2\n  [*] --> starting\n…'
 */
import type { AnyStateMachine } from 'xstate'

/** The parts of an XState state node the chart reads. */
interface Node {
  readonly key: string
  readonly path: ReadonlyArray<string>
  readonly type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history'
  readonly states: Readonly<Record<string, Node>>
  readonly parent?: Node | undefined
  readonly tags: ReadonlyArray<string>
  readonly entry: ReadonlyArray<unknown>
  readonly initial?: { readonly target: ReadonlyArray<Node> } | undefined
  readonly invoke: ReadonlyArray<{ readonly src: unknown; readonly id: string }>
  readonly after: ReadonlyArray<{ readonly delay: unknown; readonly eventType: string }>
  readonly transitions: ReadonlyMap<string, ReadonlyArray<Transition>>
  readonly always?: ReadonlyArray<Transition> | undefined
}

interface Transition {
  readonly eventType: string
  readonly target?: ReadonlyArray<Node> | undefined
  readonly guard?: unknown
  readonly actions: ReadonlyArray<unknown>
  readonly reenter: boolean
}

/** What {@link statechartOf} produces. */
export interface Statechart {
  /** The Mermaid `stateDiagram-v2` source. */
  readonly mermaid: string
  /** A Markdown table: per state, its tags, invoked actors, delays and the events it handles in place. */
  readonly table: string
}

const nameOf = (thing: unknown, fallback: string): string => {
  if (typeof thing === 'string') return thing
  if (typeof thing === 'object' && thing !== null && typeof (thing as { type?: unknown }).type === 'string') {
    const type = (thing as { type: string }).type
    return type === 'xstate.assign' ? 'assign' : type
  }
  if (typeof thing === 'function') {
    const fn = thing as { type?: unknown; name: string }
    if (fn.type === 'xstate.assign' || fn.name === 'assign') return 'assign'
    return typeof fn.type === 'string' ? fn.type.replace(/^xstate\./, '') : fallback
  }
  return fallback
}

const guardText = (t: Transition) => (t.guard === undefined ? '' : ` [${nameOf(t.guard, 'inline guard')}]`)

/** An edge label from an event type: done/error of invoked actors and delays read as such. */
const eventText = (node: Node, eventType: string): string => {
  const done = /^xstate\.done\.actor\.(.+)$/.exec(eventType)
  if (done) return `done: ${done[1]}`
  const error = /^xstate\.error\.actor\.(.+)$/.exec(eventType)
  if (error) return `error: ${error[1]}`
  const delayed = node.after.find((a) => a.eventType === eventType)
  if (delayed)
    return `after ${typeof delayed.delay === 'number' ? `${delayed.delay} ms` : nameOf(delayed.delay, 'a delay')}`
  return eventType
}

const children = (node: Node): Node[] => Object.values(node.states)

/** Ids are the state's path (unique); states show their own key. */
const idOf = (node: Node) => node.path.join('_')

/** Mermaid reads `:` and a few other characters in labels; keep them plain. */
const clean = (text: string) =>
  text
    .replace(/[;#{}]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()

/**
 * The chart of `machine`.
 *
 * @example
 * statechartOf(errandMachine).mermaid.split('\n')[0] // 'stateDiagram-v2'
 */
export const statechartOf = (machine: AnyStateMachine): Statechart => {
  const root = machine.root as unknown as Node
  const lines: string[] = ['stateDiagram-v2']
  const rows: string[] = []

  const ancestors = (n: Node): Node[] => {
    const chain: Node[] = []
    for (let p: Node | undefined = n; p !== undefined; p = p.parent) chain.unshift(p)
    return chain
  }

  /** The edge as Mermaid can draw it: between the nearest states that share a parent. */
  const drawable = (source: Node, target: Node): { from: Node; to: Node; note: string } => {
    if (source === target) return { from: source, to: target, note: '' }
    const a = ancestors(source)
    const b = ancestors(target)
    let i = 0
    while (i < a.length && i < b.length && a[i] === b[i]) i++
    // One is inside the other (a transition to an ancestor, or into a descendant).
    if (i === a.length || i === b.length) return { from: source, to: target, note: '' }
    const from = a[i]!
    const to = b[i]!
    const notes: string[] = []
    if (from !== source) notes.push(`from ${source.path.slice(from.path.length - 1).join('.')}`)
    if (to !== target) notes.push(`to ${target.path.slice(to.path.length - 1).join('.')}`)
    return { from, to, note: notes.length ? ` (${notes.join(', ')})` : '' }
  }

  /** Edges are collected per drawn pair, so parallel labels merge into one arrow. */
  const edges = new Map<string, { readonly from: Node; readonly to: Node; readonly labels: string[] }>()
  const addEdge = (source: Node, target: Node, label: string) => {
    const { from, to, note } = drawable(source, target)
    const key = `${idOf(from)}>${idOf(to)}`
    const edge = edges.get(key) ?? { from, to, labels: [] }
    edge.labels.push(clean(label + note))
    edges.set(key, edge)
  }
  /** Where an edge is written: inside the block of the drawn states' common parent. */
  const edgesByParent = new Map<Node, string[]>()

  const visit = (node: Node) => {
    const inPlace: string[] = []
    for (const t of node.always ?? []) {
      for (const target of t.target ?? []) addEdge(node, target, `always${guardText(t)}`)
      if (!t.target?.length) inPlace.push(`always${guardText(t)}`)
    }
    for (const [eventType, ts] of node.transitions) {
      for (const t of ts) {
        const label = `${eventText(node, eventType)}${guardText(t)}`
        if (t.target?.length) for (const target of t.target) addEdge(node, target, label)
        else {
          const actions = t.actions.map((a) => nameOf(a, 'inline action')).join(', ')
          inPlace.push(`${label}${actions ? ` / ${actions}` : ''}`)
        }
      }
    }
    const invoked = node.invoke.map((i) =>
      nameOf(i.src, i.id) === i.id ? i.id : `${nameOf(i.src, i.id)} (as ${i.id})`,
    )
    const delays = node.after.map((a) => (typeof a.delay === 'number' ? `${a.delay} ms` : nameOf(a.delay, 'a delay')))
    // XState schedules `after` delays with a delayed raise on entry: shown as the delay itself.
    const scheduled = new Set(node.after.map((a) => a.eventType))
    const entry = node.entry
      .filter(
        (a) =>
          !(
            typeof a === 'function' &&
            (a as { type?: unknown }).type === 'xstate.raise' &&
            scheduled.has(String((a as { event?: { type?: unknown } }).event?.type))
          ),
      )
      .map((a) => nameOf(a, 'inline action'))
    const where = node === root ? '(every state)' : `\`${node.path.join('.')}\``
    const cells = [
      node === root ? '' : node.type === 'final' ? 'final' : node.type,
      node.tags.join(', '),
      [
        ...entry.map((e) => `entry: ${e}`),
        ...invoked.map((i) => `invoke: ${i}`),
        ...delays.map((d) => `after: ${d}`),
      ].join('<br>'),
      inPlace.join('<br>'),
    ]
    if (cells.slice(1).some((c) => c !== '') || node !== root) rows.push(`| ${where} | ${cells.join(' | ')} |`)
    for (const child of children(node)) visit(child)
  }
  visit(root)

  for (const edge of edges.values()) {
    // Written inside the block of the states' nearest common ancestor (their parent, for siblings).
    const a = ancestors(edge.from)
    const b = ancestors(edge.to)
    let i = 0
    while (i < a.length && i < b.length && a[i] === b[i]) i++
    const common = a[i - 1]!
    const parent = common === edge.from || common === edge.to ? (common.parent ?? root) : common
    const list = edgesByParent.get(parent) ?? []
    list.push(`${idOf(edge.from)} --> ${idOf(edge.to)} : ${edge.labels.join(', ')}`)
    edgesByParent.set(parent, list)
  }

  const render = (node: Node, indent: string) => {
    const kids = children(node)
    const regions = node.type === 'parallel' ? kids.map((k) => [k]) : [kids]
    regions.forEach((region, r) => {
      if (r > 0) lines.push(`${indent}--`)
      if (node.type !== 'parallel') {
        const initial = node.initial?.target[0]
        if (initial) lines.push(`${indent}[*] --> ${idOf(initial)}`)
      }
      for (const child of region) {
        if (children(child).length === 0) {
          lines.push(`${indent}state "${child.key}" as ${idOf(child)}`)
          if (child.type === 'final') lines.push(`${indent}${idOf(child)} --> [*]`)
        } else {
          lines.push(`${indent}state ${idOf(child)} {`)
          render(child, `${indent}  `)
          lines.push(`${indent}}`)
        }
      }
    })
    for (const line of edgesByParent.get(node) ?? []) lines.push(`${indent}${line}`)
  }
  render(root, '  ')

  const table = ['| state | kind | tags | runs | handles in place |', '|---|---|---|---|---|', ...rows].join('\n')
  return { mermaid: `${lines.join('\n')}\n`, table: `${table}\n` }
}

/** The markers the generated part of a Markdown file sits between. */
export const MARKERS = {
  begin:
    '<!-- statechart:begin — generated by `npx tsx scripts/statechart.ts` from machines/errand/machine.ts; do not ' +
    'edit by hand -->',
  end: '<!-- statechart:end -->',
} as const

/**
 * The generated block for a Markdown file: the diagram in a `mermaid` fence and the table.
 *
 * @example
 * markdownBlock(statechartOf(errandMachine)).startsWith(MARKERS.begin) // true
 */
export const markdownBlock = (chart: Statechart): string =>
  [MARKERS.begin, '', '```mermaid', chart.mermaid.trimEnd(), '```', '', chart.table.trimEnd(), '', MARKERS.end].join(
    '\n',
  )

/**
 * `doc` with the text between the markers replaced by `block` (appended, with the markers, when
 * the markers are missing).
 *
 * @example
 * withBlock('# T\n', markdownBlock(chart))
 */
export const withBlock = (doc: string, block: string): string => {
  const begin = doc.indexOf(MARKERS.begin.slice(0, 24))
  const end = doc.indexOf(MARKERS.end)
  if (begin === -1 || end === -1 || end < begin) return `${doc.trimEnd()}\n\n${block}\n`
  return `${doc.slice(0, begin)}${block}${doc.slice(end + MARKERS.end.length)}`
}
