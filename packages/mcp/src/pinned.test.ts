import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { errandTest, linkedClient } from './testing.ts'

// Issue #25: Errands offers Playwright MCP's tools with the same names and input schemas. The
// list we target is pinned in pinned/playwright-mcp.json (extracted from the installed
// @playwright/mcp by scripts/pin-playwright-mcp.mjs; test/mcp/parity.test.ts checks the pin is
// still what the installed package lists), and what an MCP client lists from us is compared with
// it here: a tool added, renamed or reshaped on either side is a failing test.

interface JsonSchema {
  readonly [key: string]: unknown
}
interface Pinned {
  readonly version: string
  readonly default: ReadonlyArray<{ readonly name: string; readonly inputSchema: JsonSchema }>
  readonly caps: Readonly<Record<string, ReadonlyArray<{ readonly name: string; readonly inputSchema: JsonSchema }>>>
}
const pinned = JSON.parse(readFileSync(join(import.meta.dirname, 'pinned/playwright-mcp.json'), 'utf8')) as Pinned

/** Left out on purpose (docs/mcp.md): it runs code in the server process, outside any errand. */
const LEFT_OUT = ['browser_run_code_unsafe']
/** Ours beside Playwright's: asking the person for a sign-in (P4, issue #26). */
const ERRANDS_OWN = ['browser_request_sign_in', 'browser_downloads', 'browser_request_help', 'browser_fill_password']
/** Our extra fields: the older names Playwright MCP used before `target`, accepted in its place. */
const ALIASES: Record<string, string> = { ref: 'target', startRef: 'startTarget', endRef: 'endTarget' }

/**
 * The shape of a schema, without what may differ between zod 3 (ours) and zod 4 (theirs) or is
 * ours to choose: descriptions, defaults, bounds, the JSON Schema draft, integer vs number.
 */
const shape = (s: JsonSchema): unknown => {
  const anyOf = s.anyOf as ReadonlyArray<JsonSchema> | undefined
  if (anyOf !== undefined) {
    const rest = anyOf.filter((a) => a.type !== 'null')
    return rest.length === 1 && rest.length < anyOf.length
      ? { ...(shape(rest[0]!) as object), nullable: true }
      : { anyOf: anyOf.map(shape) }
  }
  const types = (Array.isArray(s.type) ? s.type : [s.type]) as ReadonlyArray<string>
  const nullable = types.includes('null') ? { nullable: true } : {}
  const type = types.filter((t) => t !== 'null').map((t) => (t === 'integer' ? 'number' : t))[0]
  const enumOf =
    s.enum === undefined ? {} : { enum: [...(s.enum as ReadonlyArray<unknown>)].filter((v) => v !== null).sort() }
  if (type === 'array') return { type, items: shape(s.items as JsonSchema), ...nullable }
  if (type === 'object' && s.properties === undefined && typeof s.additionalProperties === 'object') {
    return { type, values: shape(s.additionalProperties as JsonSchema), ...nullable }
  }
  if (type === 'object') {
    const props = (s.properties ?? {}) as Record<string, JsonSchema>
    return {
      type,
      properties: Object.fromEntries(
        Object.keys(props)
          .sort()
          .map((k) => [k, shape(props[k]!)]),
      ),
      // A field with a default is required in both lists (listing.ts); a client may leave it out all the same.
      required: [...((s.required ?? []) as ReadonlyArray<string>)].sort(),
      ...nullable,
    }
  }
  return { type, ...enumOf, ...nullable }
}

/**
 * Both schemas shaped for comparison, with our aliases set aside: an alias stands in for its
 * target, so where theirs requires `target`, ours requires `target` or `ref` (checked by the
 * tool) and the JSON Schema requires neither. So a target we give an alias for is not compared
 * as required — its presence, type and the alias's are. Nested objects (browser_fill_form's
 * fields) the same.
 */
const compared = (ours: JsonSchema, theirs: JsonSchema): [unknown, unknown] => {
  if (ours.type === 'array' && theirs.type === 'array' && (ours.items as JsonSchema)?.type === 'object') {
    const [a, b] = compared(ours.items as JsonSchema, theirs.items as JsonSchema)
    return [
      { type: 'array', items: a },
      { type: 'array', items: b },
    ]
  }
  if (ours.type !== 'object' || ours.properties === undefined) return [shape(ours), shape(theirs)]
  const props = { ...(ours.properties as Record<string, JsonSchema>) }
  const theirProps = (theirs.properties ?? {}) as Record<string, JsonSchema>
  const stoodIn = new Set<string>()
  for (const [alias, target] of Object.entries(ALIASES)) {
    if (alias in props && target in props) {
      expect(props[alias]!.type, alias).toBe('string')
      delete props[alias]
      stoodIn.add(target)
    }
  }
  const keys = [...new Set([...Object.keys(props), ...Object.keys(theirProps)])]
  const pairs = keys.map((k) =>
    k in props && k in theirProps
      ? compared(props[k]!, theirProps[k]!)
      : [k in props ? shape(props[k]!) : undefined, k in theirProps ? shape(theirProps[k]!) : undefined],
  )
  const required = (s: JsonSchema) => (shape({ ...s, properties: {} }) as { required: Array<string> }).required
  return [
    {
      properties: Object.fromEntries(keys.map((k, i) => [k, pairs[i]![0]])),
      required: required(ours)
        .filter((k) => !stoodIn.has(k))
        .sort(),
    },
    {
      properties: Object.fromEntries(keys.map((k, i) => [k, pairs[i]![1]])),
      required: required(theirs)
        .filter((k) => !stoodIn.has(k))
        .sort(),
    },
  ]
}

const closing: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const c of closing.splice(0)) await c()
})
const listed = async (caps?: ReadonlyArray<'vision' | 'pdf'>) => {
  const linked = await linkedClient({ errand: errandTest({}), caps })
  closing.push(linked.close)
  return (await linked.client.listTools()).tools
}

describe(`the tools are Playwright MCP ${pinned.version}'s (pinned/playwright-mcp.json, #25)`, () => {
  it('the pin is the default set of 25 tools, and the vision and pdf capabilities', () => {
    expect(pinned.default.length).toBe(25)
    expect(Object.keys(pinned.caps).sort()).toEqual(['pdf', 'vision'])
  })

  it(
    `lists every default tool by its name, but ${LEFT_OUT.join(', ')}, and ours: ` + `${ERRANDS_OWN.join(', ')}`,
    async () => {
      const names = (await listed()).map((t) => t.name).sort()
      expect(names).toEqual(
        [...pinned.default.map((t) => t.name).filter((n) => !LEFT_OUT.includes(n)), ...ERRANDS_OWN].sort(),
      )
    },
  )

  it('offers the vision and pdf tools only with those capabilities, as --caps does', async () => {
    const base = new Set((await listed()).map((t) => t.name))
    for (const cap of ['vision', 'pdf'] as const) {
      const added = (await listed([cap]))
        .map((t) => t.name)
        .filter((n) => !base.has(n))
        .sort()
      expect(added, cap).toEqual(pinned.caps[cap]!.map((t) => t.name).sort())
    }
  })

  it(
    'every input schema has the same fields, types, enums and required fields (target may be given as the older ' +
      'ref)',
    async () => {
      const tools = new Map((await listed(['vision', 'pdf'])).map((t) => [t.name, t.inputSchema as JsonSchema]))
      for (const t of [...pinned.default, ...Object.values(pinned.caps).flat()]) {
        if (LEFT_OUT.includes(t.name)) continue
        expect(tools.has(t.name), t.name).toBe(true)
        const [a, b] = compared(tools.get(t.name)!, t.inputSchema)
        expect(a, t.name).toEqual(b)
      }
    },
  )

  it('no schema leans on a JSON Schema $ref (some clients do not follow one)', async () => {
    for (const t of await listed(['vision', 'pdf'])) expect(JSON.stringify(t.inputSchema), t.name).not.toContain('$ref')
  })

  it('the comparison sees a drift: a missing field, a changed enum, a field made required', () => {
    const base = {
      type: 'object',
      properties: { a: { type: 'string', enum: ['x', 'y'] }, b: { type: 'boolean' } },
      required: ['a'],
    }
    const same = (ours: JsonSchema) => {
      const [x, y] = compared(ours, base)
      return JSON.stringify(x) === JSON.stringify(y)
    }
    expect(same(base)).toBe(true)
    expect(same({ ...base, properties: { a: base.properties.a } })).toBe(false)
    expect(same({ ...base, properties: { ...base.properties, a: { type: 'string', enum: ['x'] } } })).toBe(false)
    expect(same({ ...base, required: ['a', 'b'] })).toBe(false)
    expect(same({ ...base, properties: { ...base.properties, c: { type: 'string' } } })).toBe(false)
  })
})
