/**
 * Requirement IDs (E1, L5, B7…) cited in the code, and the headings of docs/requirements.md they
 * must resolve to (issue #24, STYLE §10). `requirements.test.ts` holds the repo to it.
 *
 * A *citation* is an ID — one capital letter and a number from 1 to 99 standing alone — in a
 * comment or a test title (the first string of `describe`/`it`/`test`), in a citing position:
 * - right after `(`, `/`, or another ID and `, ` / `; `: `(E1)`, `(E3/E4)`, `(L5, B1)`;
 * - or right before `)`, `,`, `;`, `:`, `/`, `–` or `'s`: `E1: …`, `(issue #21, L7)`, `C2's candidates`.
 * A range `H1–H3` (or `H1-H3`) cites every ID in it. Not a citation: a name in running prose
 * (`…; V8 gives a page's calls…`), a quoted value (`targetId: 'T1'`), part of a longer word.
 *
 * @example
 * citations('// the cap (C1, B4); heals (H1–H3). V8 is not one')
 * // ['C1', 'B4', 'H1', 'H2', 'H3']
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { scan, sourcesUnder } from './source.ts'

const ID = /(?<![\w.$#'"`\-–])([A-Z])([1-9]\d?)(?![\w"`]|['’](?!s\b))/g
const RANGE = /^\s*[–-]\s*([A-Z])([1-9]\d?)(?![\w'"`])/
const BEFORE = /(?:[(/]|\b[A-Z][1-9]\d?[,;] )$/
const AFTER = /^(?:[),;:/–]|['’]s\b)/

/** The IDs `text` cites, in order, ranges expanded. See the file's comment for what counts. */
export const citations = (text: string): Array<string> => {
  const found: Array<string> = []
  for (const m of text.matchAll(ID)) {
    const [token, letter, digits] = m as unknown as [string, string, string]
    const end = m.index + token.length
    const range = RANGE.exec(text.slice(end))
    const after = text.slice(range === null ? end : end + range[0].length)
    if (!BEFORE.test(text.slice(0, m.index)) && !AFTER.test(after) && range === null) continue
    const from = Number(digits)
    const to = range !== null && range[1] === letter && Number(range[2]) > from ? Number(range[2]) : from
    for (let n = from; n <= to; n++) found.push(`${letter}${n}`)
    if (range !== null && range[1] !== letter) found.push(`${range[1]}${range[2]}`)
  }
  return found
}

/** Where an ID is cited. */
export interface Citation {
  readonly id: string
  readonly file: string
  readonly line: number
}

/** Every citation in the comments and test titles of the TypeScript files under `dirs` (repo-relative). */
export const citedIn = (root: string, dirs: ReadonlyArray<string>): Array<Citation> =>
  dirs
    .flatMap((dir) => sourcesUnder(root, dir))
    .flatMap((file) => {
      const { comments, titles } = scan(file, readFileSync(join(root, file), 'utf8'))
      return [...comments, ...titles].flatMap(({ text, line }) =>
        // A block comment spans lines: count which line of it the ID is on.
        text.split('\n').flatMap((part, i) => citations(part).map((id) => ({ id, file, line: line + i }))),
      )
    })

/**
 * The anchors of a Markdown file's headings that are a requirement ID alone (`### E1` → `e1`),
 * which is what makes `docs/requirements.md#e1` a link.
 *
 * @example
 * requirementAnchors('## E — errand lifecycle\n\n### E1\n\nEvery task…') // ['e1']
 */
export const requirementAnchors = (markdown: string): Array<string> =>
  [...markdown.matchAll(/^#{2,4} ([A-Z][1-9]\d?)\s*$/gm)].map((m) => m[1]!.toLowerCase())
