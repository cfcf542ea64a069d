import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/*
 * R4 (issue #28, ADR 0018): every workspace package builds to dist/ with `tsc -b`, and its
 * package.json says so. Six people add packages and dependencies at once; this keeps the wiring
 * from drifting: a new `@errands/*` dependency without its project reference builds in the
 * wrong order (or not at all), an import without a declared dependency breaks an install outside
 * the monorepo, and an export without the `@errands/source` condition breaks in-repo tests.
 */

const root = resolve(import.meta.dirname, '..')
const read = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'))
const dirs = ['machines', ...readdirSync(join(root, 'packages')).map((d) => `packages/${d}`)]
  .filter((d) => { try { return read(`${d}/package.json`).name !== undefined } catch { return false } })

const sources = (dir: string): Array<string> =>
  readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !/\/(node_modules|dist)\//.test(f))

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
    const refs = (read(`${dir}/tsconfig.json`).references as Array<{ path: string }>).map((r) => relative(root, resolve(root, dir, r.path)))
    expect(refs.sort()).toEqual(deps.map((d) => byName.get(d)).sort())
    const build = (read('tsconfig.build.json').references as Array<{ path: string }>).map((r) => r.path)
    expect(build).toContain(dir)
  })

  it.each(dirs)('%s: every @errands/* package its code imports is a declared dependency', (dir) => {
    const pkg = read(`${dir}/package.json`)
    const src = dir === 'machines' ? dir : `${dir}/src`
    const imported = new Set<string>()
    for (const file of sources(src)) {
      // Import statements only (an @example in a comment names packages it does not load).
      for (const m of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"\n]*?from\s+'(@errands\/[a-z-]+)'/gm)) imported.add(m[1]!)
    }
    imported.delete(pkg.name)
    const declared = Object.keys(pkg.dependencies ?? {})
    expect([...imported].filter((d) => !declared.includes(d)), `${dirname(dir)}`).toEqual([])
  })
})
