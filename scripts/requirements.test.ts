import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { citations, citedIn, requirementAnchors } from './requirements.ts'

/*
 * Requirement IDs resolve (issue #24, STYLE §10): an ID a comment or a test title cites is a
 * heading of docs/requirements.md, so a reader can look it up and a typo fails here.
 */

const root = resolve(import.meta.dirname, '..')
const doc = readFileSync(resolve(root, 'docs/requirements.md'), 'utf8')

describe('citations: what counts', () => {
  it.each([
    ['// parks it (E4).', ['E4']],
    [' * the key (L5, B1) and the cap (C1; B4)', ['L5', 'B1', 'C1', 'B4']],
    [' * K2: the Postgres store', ['K2']],
    ['healed from snapshots (H1–H3)', ['H1', 'H2', 'H3']],
    ['hosts as one (K1-K3)', ['K1', 'K2', 'K3']],
    ["nobody drives it (C2's candidates)", ['C2']],
    ['the toggle (E3/E4 of the spec)', ['E3', 'E4']],
    ['a stream proxy (issue #21, L7)', ['L7']],
  ])('%s cites %j', (text, ids) => {
    expect(citations(text)).toEqual(ids)
  })

  it.each([
    ["`Runtime.addBinding`; V8 gives a page's calls to the last session"],
    ["@example const p: Params = { targetId: 'T1' }"],
    ['the A11y tree, H2O, an x86 build, a #B2 colour, v1.E2'],
    ['Chromium as X11 draws it'],
  ])('%s cites nothing', (text) => {
    expect(citations(text)).toEqual([])
  })
})

describe('docs/requirements.md', () => {
  const anchors = requirementAnchors(doc)

  it('has one heading per requirement, each under the section of its letter', () => {
    expect(anchors.length).toBeGreaterThan(70)
    expect(new Set(anchors).size).toBe(anchors.length)
    let section = ''
    for (const line of doc.split('\n')) {
      const s = /^## ([A-Z]) — /.exec(line)
      if (s !== null) section = s[1]!
      const r = /^### ([A-Z])[1-9]\d?$/.exec(line)
      if (r !== null) expect(r[1], line).toBe(section)
    }
  })

  it('resolves every ID cited in the comments and test titles of the code', () => {
    const cited = citedIn(root, ['packages', 'machines', 'soak', 'bench', 'test', 'scripts'])
    expect(cited.length).toBeGreaterThan(100)
    const missing = cited
      .filter((c) => !anchors.includes(c.id.toLowerCase()))
      .map((c) => `${c.file}:${c.line} cites ${c.id}, which docs/requirements.md has no heading for`)
    expect(missing).toEqual([])
  })
})
