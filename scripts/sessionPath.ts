/**
 * The session path rule (issue #24, ADR 0027): a face — DevTools, the live view, the Daily tools,
 * MCP, the host — acts on a session through the one `Sessions` service, never by calling a
 * session verb (`park`, `view`, `drive` … `SESSION_VERBS`) on the `Supervisor` itself. Parsed
 * with oxc like the import rules (source.ts), not with regular expressions.
 *
 * What counts as the supervisor in a file: a name that says so (`supervisor`, `localSupervisor`),
 * a binding from `yield* Supervisor`, a binding or parameter typed `SupervisorShape`, and the
 * parameter of a callback given the `Supervisor` tag (`Effect.flatMap(Supervisor, (s) => …)`).
 * A session verb on one of them — called, passed on, or destructured — is a violation.
 * What spans errands (capacity, health, settle, onHealth …) is not a session verb and stays allowed.
 *
 * @example
 * const found = checkSessionPath('packages/liveview/src/x.ts', 'const s = yield* Supervisor\ns.park(id)', ['park'])
 * // [{ file: 'packages/liveview/src/x.ts', line: 2, verb: 'park', … }]
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseSync } from 'rolldown/utils'
import { sourcesUnder } from './source.ts'

/** The face packages' source folders the rule reads. */
export const FACES = [
  'packages/devtools/src',
  'packages/liveview/src',
  'packages/daily/src',
  'packages/mcp/src',
  'packages/host/src',
]

/** Files that build the layers, and so may name the supervisor (they call no session verb on it either). */
export const LAYER_FILES = ['packages/host/src/engine.ts']

/** One session verb called on the supervisor. */
export interface SessionPathViolation {
  readonly file: string
  readonly line: number
  /** The name the supervisor had there (`supervisor`, `s` …). */
  readonly name: string
  readonly verb: string
  readonly message: string
}

type Node = { readonly type: string; readonly start: number; readonly [key: string]: unknown }

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'

const identifier = (node: unknown): string | undefined =>
  isNode(node) && node.type === 'Identifier' ? (node.name as string) : undefined

// `yield* Supervisor` in a generator, or read as `yield * Supervisor` outside one.
const isSupervisorTag = (node: unknown): boolean => {
  if (!isNode(node)) return false
  if (identifier(node) === 'Supervisor') return true
  if (node.type === 'YieldExpression') return isSupervisorTag(node.argument)
  if (node.type === 'BinaryExpression' && identifier(node.left) === 'yield') return isSupervisorTag(node.right)
  if (
    node.type === 'TSAsExpression' ||
    node.type === 'TSSatisfiesExpression' ||
    node.type === 'ParenthesizedExpression'
  )
    return isSupervisorTag(node.expression)
  return false
}

const typedSupervisor = (id: Node): boolean => {
  const annotation = id.typeAnnotation
  if (!isNode(annotation)) return false
  const type = annotation.typeAnnotation
  return isNode(type) && type.type === 'TSTypeReference' && identifier(type.typeName) === 'SupervisorShape'
}

const walk = (node: Node, visit: (node: Node) => void): void => {
  visit(node)
  for (const value of Object.values(node)) {
    if (Array.isArray(value))
      for (const item of value) {
        if (isNode(item)) walk(item, visit)
      }
    else if (isNode(value)) walk(value, visit)
  }
}

const propertyName = (node: Node): string | undefined => {
  const property = node.property ?? node.key
  if (node.computed === true)
    return isNode(property) && property.type === 'Literal' && typeof property.value === 'string'
      ? property.value
      : undefined
  return identifier(property)
}

/**
 * Session verbs called on the supervisor in one file.
 *
 * @throws when the file does not parse (a check must not pass by reading nothing).
 */
export const checkSessionPath = (
  file: string,
  text: string,
  verbs: ReadonlyArray<string>,
): Array<SessionPathViolation> => {
  const result = parseSync(file, text)
  if (result.errors.length > 0) throw new Error(`${file} does not parse: ${result.errors[0]!.message}`)
  const program = result.program as unknown as Node
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length

  // First the names the supervisor goes by in this file.
  const names = new Set<string>()
  walk(program, (node) => {
    if (node.type === 'VariableDeclarator') {
      const name = identifier(node.id)
      if (name !== undefined && (isSupervisorTag(node.init) || typedSupervisor(node.id as Node))) names.add(name)
    }
    if (node.type === 'Identifier' && typedSupervisor(node)) names.add(node.name as string)
    if (node.type === 'CallExpression') {
      const args = node.arguments as Array<unknown>
      const callback = args[1]
      if (
        isSupervisorTag(args[0]) &&
        isNode(callback) &&
        (callback.type === 'ArrowFunctionExpression' || callback.type === 'FunctionExpression')
      ) {
        const param = identifier((callback.params as Array<unknown>)[0])
        if (param !== undefined) names.add(param)
      }
    }
  })
  const isSupervisor = (node: unknown): string | undefined => {
    const name = identifier(node)
    if (name !== undefined) return names.has(name) || /supervisor/i.test(name) ? name : undefined
    // `this.supervisor.park`, `core.supervisor.view`
    return isNode(node) && node.type === 'MemberExpression' && /supervisor/i.test(propertyName(node) ?? '')
      ? propertyName(node)
      : undefined
  }

  const violations: Array<SessionPathViolation> = []
  const add = (node: Node, name: string, verb: string) =>
    violations.push({
      file,
      line: lineOf(node.start),
      name,
      verb,
      message:
        `${file}:${lineOf(node.start)} calls '${verb}' on the Supervisor (${name}); a face acts on a session ` +
        `through the Sessions service (ADR 0027, scripts/sessionPath.ts)`,
    })
  walk(program, (node) => {
    if (node.type === 'MemberExpression') {
      const name = isSupervisor(node.object)
      const verb = propertyName(node)
      if (name !== undefined && verb !== undefined && verbs.includes(verb)) add(node, name, verb)
    }
    if (node.type === 'VariableDeclarator' && isNode(node.id) && (node.id as Node).type === 'ObjectPattern') {
      const name = isSupervisor(node.init)
      if (name === undefined) return
      for (const property of (node.id as Node).properties as Array<Node>) {
        const verb = property.type === 'Property' ? propertyName(property) : undefined
        if (verb !== undefined && verbs.includes(verb)) add(property, name, verb)
      }
    }
  })
  return violations
}

/**
 * The rule over the repo: every shipped source file of the faces (tests may set up a supervisor).
 *
 * @example
 * expect(checkFaces(root, SESSION_VERBS)).toEqual([])
 */
export const checkFaces = (root: string, verbs: ReadonlyArray<string>): Array<SessionPathViolation> =>
  FACES.flatMap((dir) => sourcesUnder(root, dir))
    .filter((file) => !/\.test\.tsx?$/.test(file) && !LAYER_FILES.includes(file))
    .flatMap((file) => checkSessionPath(file, readFileSync(join(root, file), 'utf8'), verbs))
