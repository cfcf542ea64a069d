import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  checkImports,
  packageOf,
  readWorkspace,
  type Manifest,
  type Rules,
  type Violation,
  type WorkspacePackage,
} from './imports.ts'
import { DEPS, RULES } from './imports.rules.ts'
import { scan } from './source.ts'

/*
 * The import rules (issue #24, scripts/imports.rules.ts): first that the checker catches each kind
 * of break in a small tree made up here, then that the repo keeps them.
 */

const root = resolve(import.meta.dirname, '..')

const pkg = (dir: string, manifest: Manifest, files: Record<string, string>): WorkspacePackage => ({
  dir,
  manifest,
  files: Object.entries(files).map(([name, text]) => ({ path: `${dir}/${name}`, imports: scan(name, text).imports })),
})

const rules: Rules = {
  deps: { '@errands/machines': [], '@errands/runtime': [], '@errands/host': ['@errands/runtime'] },
  pure: { '@errands/machines': { source: ['xstate'], test: ['xstate', 'vitest'] } },
  forbidden: { '@errands/host': { packages: ['playwright-core', 'playwright'], why: 'no browser library' } },
  boundary: {
    '@errands/host': { package: '@errands/runtime', only: ['packages/host/src/index.ts'], why: 'through the seam' },
  },
  exceptions: [],
}

// A tree that keeps every rule; each case below breaks one thing in it.
const machines = (files: Record<string, string> = {}) =>
  pkg(
    'machines',
    { name: '@errands/machines', dependencies: { xstate: '5' } },
    {
      'errand/machine.ts':
        "import { setup } from 'xstate'\nimport { guards } from './guards.ts'\nexport const m = setup({})",
      'errand/guards.ts': 'export const guards = {}',
      'errand/machine.test.ts': "import { it } from 'vitest'\nimport { m } from './machine.ts'",
      ...files,
    },
  )
const runtime = (files: Record<string, string> = {}, manifest: Partial<Manifest> = {}) =>
  pkg(
    'packages/runtime',
    { name: '@errands/runtime', dependencies: { effect: '3' }, ...manifest },
    {
      'src/index.ts':
        "import { Effect } from 'effect'\nimport { readFile } from 'node:fs/promises'\nimport * as os from 'os'",
      'src/index.test.ts': "import { it } from '@effect/vitest'\nimport { Runtime } from '@errands/runtime'",
      ...files,
    },
  )
const host = () =>
  pkg(
    'packages/host',
    { name: '@errands/host', dependencies: { '@errands/runtime': '*', '@modelcontextprotocol/sdk': '1' } },
    {
      'src/index.ts':
        "import type { Runtime } from '@errands/runtime'\nexport { McpServer } from " +
        "'@modelcontextprotocol/sdk/server/mcp.js'",
    },
  )

const only = (violations: Array<Violation>): Violation => {
  expect(violations.map((v) => v.message)).toHaveLength(1)
  return violations[0]!
}

describe('import rules: the checker fails on each kind of break', () => {
  it('passes a tree that keeps the rules (node: builtins, subpaths, type imports, self-imports in tests)', () => {
    expect(checkImports([machines(), runtime(), host()], rules)).toEqual([])
  })

  it('a package importing an @errands/* package its DEPS row does not allow (direction)', () => {
    const v = only(
      checkImports(
        [
          machines(),
          runtime(
            { 'src/back.ts': "import { startHost } from '@errands/host'" },
            { dependencies: { effect: '3', '@errands/host': '*' } },
          ),
          host(),
        ],
        rules,
      ),
    )
    expect(v).toMatchObject({
      rule: 'direction',
      file: 'packages/runtime/src/back.ts',
      line: 1,
      import: '@errands/host',
    })
    expect(v.message).toBe(
      "packages/runtime/src/back.ts:1 imports '@errands/host': @errands/runtime may import only no @errands/* " +
        'package (DEPS in scripts/imports.rules.ts) (rule: direction)',
    )
  })

  it('the direction holds for test files too', () => {
    const v = only(checkImports([machines(), runtime({ 'src/x.test.ts': "import '@errands/host'" }), host()], rules))
    expect(v).toMatchObject({ rule: 'direction', file: 'packages/runtime/src/x.test.ts', import: '@errands/host' })
  })

  it('a shipped file importing a package its package.json does not declare (undeclared)', () => {
    const v = only(
      checkImports(
        [machines(), runtime({ 'src/site.ts': "\n\nconst { parse } = await import('tldts')" }), host()],
        rules,
      ),
    )
    expect(v.message).toBe(
      "packages/runtime/src/site.ts:3 imports 'tldts': tldts is not in packages/runtime/package.json dependencies or " +
        'peerDependencies (rule: undeclared)',
    )
  })

  it('a devDependency does not count for a shipped file, and the message says why', () => {
    const v = only(
      checkImports(
        [
          machines(),
          runtime({ 'src/ws.ts': "import { WebSocket } from 'ws'" }, { devDependencies: { ws: '8' } }),
          host(),
        ],
        rules,
      ),
    )
    expect(v.rule).toBe('undeclared')
    expect(v.message).toContain('a devDependency, which an installed package does not get')
  })

  it('test files may import what they like (vitest, fast-check) without declaring it', () => {
    expect(
      checkImports([machines(), runtime({ 'src/props.test.ts': "import fc from 'fast-check'" }), host()], rules),
    ).toEqual([])
  })

  it('a declared dependency no shipped file imports (unused); a test using it does not count', () => {
    const v = only(
      checkImports(
        [machines(), runtime({ 'src/ws.test.ts': "import 'ws'" }, { dependencies: { effect: '3', ws: '8' } }), host()],
        rules,
      ),
    )
    expect(v).toMatchObject({ rule: 'unused', file: 'packages/runtime/package.json', import: 'ws' })
    expect(v.message).toContain(
      "packages/runtime/package.json declares 'ws' but no non-test file of @errands/runtime imports it",
    )
  })

  it('a peerDependency counts as declared', () => {
    expect(
      checkImports([machines(), runtime({}, { dependencies: {}, peerDependencies: { effect: '3' } }), host()], rules),
    ).toEqual([])
  })

  it('a relative import that leaves the package (escapes), from any file', () => {
    const v = only(
      checkImports(
        [
          machines(),
          runtime({ 'src/deep/x.test.ts': "import { startHost } from '../../../host/src/index.ts'" }),
          host(),
        ],
        rules,
      ),
    )
    expect(v.message).toBe(
      "packages/runtime/src/deep/x.test.ts:1 imports '../../../host/src/index.ts': a relative import must stay " +
        'inside packages/runtime/; it reaches packages/host/src/index.ts (import the other package by its name, or ' +
        'move the shared code) (rule: escapes)',
    )
  })

  it('machines importing node:fs, a network module or any @errands/* package (pure)', () => {
    const found = checkImports(
      [
        machines({
          'errand/load.ts':
            "import { readFileSync } from 'node:fs'\nimport { Effect } from 'effect'\nimport type { Runtime } from " +
            "'@errands/runtime'",
        }),
        runtime(),
        host(),
      ],
      rules,
    )
    expect(found.map((v) => [v.rule, v.file, v.line, v.import])).toEqual([
      ['pure', 'machines/errand/load.ts', 1, 'node:fs'],
      ['pure', 'machines/errand/load.ts', 2, 'effect'],
      ['pure', 'machines/errand/load.ts', 3, '@errands/runtime'],
    ])
    expect(found[0]!.message).toBe(
      "machines/errand/load.ts:1 imports 'node:fs': @errands/machines is pure and its sources may import only xstate " +
        'and their own files (STYLE §1: no I/O, no clock, no effect or browser libraries) (rule: pure)',
    )
  })

  it("machines' tests are held to purity too (their own list)", () => {
    const v = only(
      checkImports(
        [
          machines({ 'errand/net.test.ts': "import { it } from 'vitest'\nimport * as net from 'node:net'" }),
          runtime(),
          host(),
        ],
        rules,
      ),
    )
    expect(v).toMatchObject({ rule: 'pure', file: 'machines/errand/net.test.ts', line: 2, import: 'node:net' })
    expect(v.message).toContain('its tests may import only xstate, vitest')
  })

  it('a host importing playwright-core, declared or not, from a source, a test or a subpath (forbidden)', () => {
    const declared = pkg(
      'packages/host',
      {
        name: '@errands/host',
        dependencies: { '@errands/runtime': '*', '@modelcontextprotocol/sdk': '1', 'playwright-core': '1' },
      },
      {
        'src/index.ts':
          "import type { Runtime } from '@errands/runtime'\nexport { McpServer } from " +
          "'@modelcontextprotocol/sdk/server/mcp.js'\nimport type { Page } from 'playwright-core'",
        'src/page.test.ts': "import { chromium } from 'playwright/test'",
      },
    )
    const found = checkImports([machines(), runtime(), declared], rules)
    expect(found.map((v) => [v.rule, v.file, v.line, v.import])).toEqual([
      ['forbidden', 'packages/host/src/index.ts', 3, 'playwright-core'],
      ['forbidden', 'packages/host/src/page.test.ts', 1, 'playwright/test'],
      // Declared for nothing else: the manifest entry must go too.
      ['unused', 'packages/host/package.json', 1, 'playwright-core'],
    ])
    expect(found[0]!.message).toBe(
      "packages/host/src/index.ts:3 imports 'playwright-core': @errands/host may never import playwright-core: no " +
        'browser library (FORBIDDEN in scripts/imports.rules.ts) (rule: forbidden)',
    )
    // The runtime may import it: the rule is the host's alone.
    expect(
      checkImports(
        [
          machines(),
          runtime(
            { 'src/page.ts': "import type { Page } from 'playwright-core'" },
            { dependencies: { effect: '3', 'playwright-core': '1' } },
          ),
          host(),
        ],
        rules,
      ),
    ).toEqual([])
  })

  it('a shipped file of the host importing the bounded package outside its composition files (boundary)', () => {
    const faced = pkg(
      'packages/host',
      { name: '@errands/host', dependencies: { '@errands/runtime': '*', '@modelcontextprotocol/sdk': '1' } },
      {
        'src/index.ts':
          "import type { Runtime } from '@errands/runtime'\nexport { McpServer } from " +
          "'@modelcontextprotocol/sdk/server/mcp.js'",
        'src/face.ts': "import { memoryRuntime } from '@errands/runtime'",
        // A test may build what it needs: the boundary holds shipped sources.
        'src/face.test.ts': "import { memoryRuntime } from '@errands/runtime'",
      },
    )
    const v = only(checkImports([machines(), runtime(), faced], rules))
    expect(v).toMatchObject({
      rule: 'boundary',
      file: 'packages/host/src/face.ts',
      line: 1,
      import: '@errands/runtime',
    })
    expect(v.message).toContain('only packages/host/src/index.ts may import @errands/runtime in @errands/host')
  })

  it('a package without a row in DEPS (table)', () => {
    const v = only(
      checkImports(
        [machines(), runtime(), host(), pkg('packages/new', { name: '@errands/new' }, { 'src/index.ts': 'export {}' })],
        rules,
      ),
    )
    expect(v).toMatchObject({ rule: 'table', file: 'packages/new/package.json' })
    expect(v.message).toContain('@errands/new has no entry in the DEPS table')
  })

  it('an exception silences exactly its violation, and one that matches nothing is reported', () => {
    const tree = [machines(), runtime({ 'bench/x.ts': "import '../../../test/fixtures/sites.ts'" }), host()]
    const exception = {
      rule: 'escapes',
      where: 'packages/runtime/bench/x.ts',
      import: '../../../test/fixtures/sites.ts',
      reason: 'a benchmark',
    } as const
    expect(checkImports(tree, { ...rules, exceptions: [exception] })).toEqual([])
    const unused = { rule: 'unused', where: '@errands/runtime', import: 'effect', reason: 'stale' } as const
    const v = only(checkImports([machines(), runtime(), host()], { ...rules, exceptions: [unused] }))
    expect(v.rule).toBe('table')
    expect(v.message).toContain("the exception for 'effect' in @errands/runtime (rule unused) matches nothing any more")
  })
})

describe('import rules: reading imports', () => {
  it('finds every form of import and nothing in strings or comments', () => {
    const text = [
      "import type { A } from 'a'",
      "export * from './b.ts'",
      "export { c } from 'c'",
      "const d = await import('d')",
      "type E = typeof import('e')",
      "import f = require('f')",
      "import 'g'",
      'const s = "import x from \'not-this\'"',
      "const t = `export * from 'nor-this'`",
      "// import y from 'nor-this-either'",
      "const r = /from 'no'/",
    ].join('\n')
    expect(scan('x.ts', text).imports).toEqual(
      ['a', './b.ts', 'c', 'd', 'e', 'f', 'g'].map((specifier, i) => ({ specifier, line: i + 1 })),
    )
  })

  it('names the package of a subpath import', () => {
    expect(packageOf('@modelcontextprotocol/sdk/server/mcp.js')).toBe('@modelcontextprotocol/sdk')
    expect(packageOf('preact/hooks')).toBe('preact')
  })
})

describe('import rules: the repo', () => {
  const packages = readWorkspace(root)

  it('reads every workspace package, machines included', () => {
    expect(packages.map((p) => p.manifest.name)).toContain('@errands/machines')
    expect(packages.find((p) => p.dir === 'machines')!.files.map((f) => f.path)).toContain('machines/errand/machine.ts')
  })

  it('keeps every rule (scripts/imports.rules.ts)', () => {
    expect(checkImports(packages, RULES).map((v) => v.message)).toEqual([])
  })

  it('fails the repo the moment the host or the live view imports Playwright again (FORBIDDEN, #24)', () => {
    // The real tree and the real rules, with one file of each added as a regression would add it.
    const broken = packages.map((p) =>
      p.manifest.name === '@errands/host' || p.manifest.name === '@errands/liveview'
        ? {
            ...p,
            files: [
              ...p.files,
              {
                path: `${p.dir}/src/page.ts`,
                imports: scan('page.ts', "import type { Page } from 'playwright-core'").imports,
              },
            ],
          }
        : p,
    )
    const found = checkImports(broken, RULES)
    expect(found.map((v) => [v.rule, v.file, v.import])).toEqual([
      ['forbidden', 'packages/host/src/page.ts', 'playwright-core'],
      ['forbidden', 'packages/liveview/src/page.ts', 'playwright-core'],
    ])
    expect(found[0]!.message).toContain('ADR 0028')
  })

  it('fails the repo the moment a face imports the supervisor instead of the session boundary (ADR 0044)', () => {
    // The real tree and the real rules, with one file added to each face as a regression would add it.
    const faces = ['@errands/devtools', '@errands/liveview', '@errands/daily', '@errands/mcp', '@errands/host']
    const broken = packages.map((p) =>
      faces.includes(p.manifest.name)
        ? {
            ...p,
            files: [
              ...p.files,
              {
                path: `${p.dir}/src/around.ts`,
                imports: scan('around.ts', "import { Supervisor } from '@errands/supervisor'").imports,
              },
            ],
          }
        : p,
    )
    const found = checkImports(broken, RULES)
    // The faces do not even declare it; the host declares it for its composition files alone.
    expect(found.map((v) => [v.rule, v.file])).toEqual([
      ['direction', 'packages/daily/src/around.ts'],
      ['undeclared', 'packages/daily/src/around.ts'],
      ['direction', 'packages/devtools/src/around.ts'],
      ['undeclared', 'packages/devtools/src/around.ts'],
      ['boundary', 'packages/host/src/around.ts'],
      ['direction', 'packages/liveview/src/around.ts'],
      ['undeclared', 'packages/liveview/src/around.ts'],
      ['direction', 'packages/mcp/src/around.ts'],
      ['undeclared', 'packages/mcp/src/around.ts'],
    ])
    // The host's composition files may: the engine is built there.
    expect(RULES.boundary['@errands/host']!.only).toContain('packages/host/src/engine.ts')
  })

  it('the DEPS table names only workspace packages and has no cycle', () => {
    const names = new Set(packages.map((p) => p.manifest.name))
    expect(Object.keys(DEPS).filter((n) => !names.has(n))).toEqual([])
    expect(
      Object.values(DEPS)
        .flat()
        .filter((n) => !names.has(n)),
    ).toEqual([])
    const done = new Set<string>()
    const visit = (name: string, path: ReadonlyArray<string>): void => {
      expect(path, `a cycle: ${[...path, name].join(' → ')}`).not.toContain(name)
      if (done.has(name)) return
      for (const dep of DEPS[name] ?? []) visit(dep, [...path, name])
      done.add(name)
    }
    for (const name of Object.keys(DEPS)) visit(name, [])
  })
})
