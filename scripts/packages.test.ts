import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/*
 * R4 (issue #28, ADR 0018): every workspace package builds to dist/ with `tsc -b`, and its
 * package.json says so. Six people add packages and dependencies at once; this keeps the wiring
 * from drifting: a new `@errands/*` dependency without its project reference builds in the
 * wrong order (or not at all), and an export without the `@errands/source` condition breaks
 * in-repo tests. (Imports against declared dependencies: imports.test.ts.)
 */

const root = resolve(import.meta.dirname, '..')
const read = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'))
const dirs = ['machines', ...readdirSync(join(root, 'packages')).map((d) => `packages/${d}`)].filter((d) => {
  try {
    return read(`${d}/package.json`).name !== undefined
  } catch {
    return false
  }
})

describe('workspace packages (R4)', () => {
  it.each(dirs)('%s: exports dist with types and an @errands/source condition; files ships dist', (dir) => {
    const pkg = read(`${dir}/package.json`)
    const dot = pkg.exports['.']
    expect(Object.keys(dot)).toEqual(['@errands/source', 'types', 'default'])
    expect(dot.default).toMatch(/^\.\/dist\/.+\.js$/)
    expect(dot.types).toBe(dot.default.replace(/\.js$/, '.d.ts'))
    expect(pkg.types).toBe(dot.types)
    expect(pkg.files).toContain('dist')
    for (const bin of Object.values<string>(pkg.bin ?? {})) expect(bin).toMatch(/^\.\/dist\/.+\.js$/)
  })

  it.each(dirs)('%s: its tsconfig references exactly its @errands/* dependencies, and the build lists it', (dir) => {
    const deps = Object.keys(read(`${dir}/package.json`).dependencies ?? {}).filter((d) => d.startsWith('@errands/'))
    const byName = new Map(dirs.map((d) => [read(`${d}/package.json`).name as string, d]))
    const refs = (read(`${dir}/tsconfig.json`).references as Array<{ path: string }>).map((r) =>
      relative(root, resolve(root, dir, r.path)),
    )
    expect(refs.sort()).toEqual(deps.map((d) => byName.get(d)).sort())
    const build = (read('tsconfig.build.json').references as Array<{ path: string }>).map((r) => r.path)
    expect(build).toContain(dir)
  })

  it.each(dirs)('%s: has the turbo tasks (build, typecheck of sources and tests, its unit tests; ADR 0038)', (dir) => {
    const up = relative(join(root, dir), root)
    const scripts = read(`${dir}/package.json`).scripts
    expect(scripts.build).toMatch(/^tsc -p tsconfig\.json( && .+)?$/)
    expect(scripts.typecheck).toBe('tsc -p tsconfig.check.json')
    const sources = relative(root, join(root, dir, read(`${dir}/tsconfig.json`).compilerOptions.rootDir))
    expect(scripts.test).toBe(`vitest run --passWithNoTests --project unit --root ${up} ${sources}/`)
    const check = read(`${dir}/tsconfig.check.json`)
    expect(check.extends).toBe(`${up}/tsconfig.base.json`)
    expect(check.compilerOptions.noEmit).toBe(true)
    expect(check.exclude ?? []).not.toContain('**/*.test.ts')
  })

  it('turbo.json declares the per-package tasks with build outputs cached and each after its dependencies', () => {
    const tasks = read('turbo.json').tasks
    expect(tasks.build).toMatchObject({ dependsOn: ['^build'], outputs: ['dist/**'] })
    for (const task of ['typecheck', 'test']) expect(tasks[task].dependsOn).toEqual(['^build'])
    expect(read('package.json').scripts['typecheck:tree']).toBe('tsc -p tsconfig.json --noEmit')
  })
})
