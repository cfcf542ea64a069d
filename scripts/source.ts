/**
 * What the repo's checks read from one TypeScript file: the modules it imports, its comments and
 * its test titles. Parsed with oxc (through `rolldown/utils`), not with regular expressions, so a
 * `from 'x'` inside a string, a template or a comment is never taken for an import, and a comment
 * marker inside a regular expression is never taken for a comment.
 *
 * @example
 * const { imports } = scan('a.ts', "import { Effect } from 'effect'")
 * // imports: [{ specifier: 'effect', line: 1 }]
 */
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseSync } from 'rolldown/utils'

/**
 * One module a file names: static or dynamic import, re-export, `import x = require()`, `typeof import()`. @example
 * const i: Import = { specifier: 'node:fs', line: 3 }
 */
export interface Import {
  readonly specifier: string
  readonly line: number
}

/**
 * A comment's text (without its markers) and the line it starts on. @example const c: Comment = { text: ' why (E1)',
 * line: 7 }
 */
export interface Comment {
  readonly text: string
  readonly line: number
}

/** What {@link scan} finds in one file. */
export interface Scanned {
  readonly imports: ReadonlyArray<Import>
  readonly comments: ReadonlyArray<Comment>
  /** First arguments of `describe`/`it`/`test` (and `.each`, `.effect`, `.skip`…) that are plain strings. */
  readonly titles: ReadonlyArray<Comment>
}

type Node = { readonly type: string; readonly start: number; readonly [key: string]: unknown }

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'

const literal = (value: unknown): string | undefined => {
  if (!isNode(value)) return undefined
  if (value.type === 'Literal' && typeof value.value === 'string') return value.value
  // `typeof import('x')` wraps its argument in a literal type.
  if (value.type === 'TSLiteralType') return literal(value.literal)
  const quasis = value.quasis
  if (value.type === 'TemplateLiteral' && Array.isArray(quasis) && quasis.length === 1)
    return (quasis[0] as { value: { cooked: string } }).value.cooked
  return undefined
}

// The name a test call is rooted in: `it`, `it.each([...])`, `describe.skip`, `it.effect`.
const calleeRoot = (callee: unknown): string | undefined => {
  if (!isNode(callee)) return undefined
  if (callee.type === 'Identifier') return callee.name as string
  if (callee.type === 'MemberExpression') return calleeRoot(callee.object)
  if (callee.type === 'CallExpression') return calleeRoot(callee.callee)
  return undefined
}
const TEST_CALLS = new Set(['describe', 'it', 'test'])

/**
 * Parses one file and collects its imports, comments and test titles.
 *
 * @throws when the file does not parse (a check must not pass by reading nothing).
 */
export const scan = (path: string, text: string): Scanned => {
  const result = parseSync(path, text)
  if (result.errors.length > 0) throw new Error(`${path} does not parse: ${result.errors[0]!.message}`)
  const lineStarts = [0]
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1)
  const lineOf = (offset: number): number => {
    let lo = 0
    let hi = lineStarts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (lineStarts[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    return lo + 1
  }
  const imports: Array<Import> = []
  const titles: Array<Comment> = []
  const add = (source: unknown, node: Node): void => {
    const specifier = literal(source)
    if (specifier !== undefined) imports.push({ specifier, line: lineOf(node.start) })
  }
  const visit = (node: Node): void => {
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration':
      case 'ImportExpression':
        add(node.source, node)
        break
      case 'TSImportType':
        add(node.source ?? node.argument, node)
        break
      case 'TSExternalModuleReference':
        add(node.expression, node)
        break
      case 'CallExpression': {
        const root = calleeRoot(node.callee)
        const title = literal((node.arguments as Array<unknown>)[0])
        if (root !== undefined && TEST_CALLS.has(root) && title !== undefined)
          titles.push({ text: title, line: lineOf(node.start) })
        break
      }
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value))
        for (const item of value) {
          if (isNode(item)) visit(item)
        }
      else if (isNode(value)) visit(value)
    }
  }
  visit(result.program as unknown as Node)
  const comments = result.comments.map((c) => ({ text: c.value, line: lineOf(c.start) }))
  return { imports, comments, titles }
}

/**
 * TypeScript files under `dir` (repo-relative, `/`-separated), skipping `node_modules` and `dist`. @example
 * sourcesUnder(root, 'machines')
 */
export const sourcesUnder = (root: string, dir: string): Array<string> =>
  readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|cts)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)).split('\\').join('/'))
    .filter((f) => !/(^|\/)(node_modules|dist)\//.test(f))
    .sort()
