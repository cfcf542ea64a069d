/**
 * The import rules of the workspace, checked (issue #24): which `@errands/*` package may import
 * which (the table in `imports.rules.ts`), which outside packages a package may never import (the
 * host and the live view: no browser library), machines stay pure, every package a shipped file
 * imports is declared in its own package.json and every declared one is used, and no relative
 * import leaves its package. Pure over an in-memory tree, so `imports.test.ts` can feed it broken
 * trees; {@link readWorkspace} reads the real one.
 *
 * @example
 * const violations = checkImports(readWorkspace(root), RULES)
 * for (const v of violations) console.log(v.message)
 * // packages/runtime/src/x.ts:3 imports '@errands/host': @errands/runtime may import only … (rule: direction)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, posix } from 'node:path'
import { scan, sourcesUnder, type Import } from './source.ts'

/** The rules a violation can break. */
export type Rule = 'pure' | 'direction' | 'boundary' | 'forbidden' | 'undeclared' | 'unused' | 'escapes' | 'table'

/** One broken rule: where, what, which rule, and a message that says all three. */
export interface Violation {
  readonly rule: Rule
  readonly file: string
  readonly line: number
  readonly import: string
  readonly message: string
}

/**
 * The fields of a package.json the rules read. @example const m: Manifest = { name: '@errands/guard', dependencies: {
 * effect: '3.22.4' } }
 */
export interface Manifest {
  readonly name: string
  readonly dependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly devDependencies?: Readonly<Record<string, string>>
}

/** One file of a package: its repo-relative path (`/`-separated) and the modules it names. */
export interface PackageFile {
  readonly path: string
  readonly imports: ReadonlyArray<Import>
}

/** A workspace package: its folder (repo-relative), its manifest and its TypeScript files. */
export interface WorkspacePackage {
  readonly dir: string
  readonly manifest: Manifest
  readonly files: ReadonlyArray<PackageFile>
}

/** A violation the table accepts on purpose, with the reason a reader needs. */
export interface Exception {
  readonly rule: Rule
  /** A file (for `pure`, `direction`, `undeclared`, `escapes`) or a package name (for `unused`). */
  readonly where: string
  readonly import: string
  readonly reason: string
}

/** Everything the checker enforces; `imports.rules.ts` holds the repo's values. */
export interface Rules {
  /** Per package, the `@errands/*` packages it may import (its own name is always allowed). */
  readonly deps: Readonly<Record<string, ReadonlyArray<string>>>
  /** Pure packages: the only bare modules their sources and their tests may import (no `node:`). */
  readonly pure: Readonly<
    Record<string, { readonly source: ReadonlyArray<string>; readonly test: ReadonlyArray<string> }>
  >
  /**
   * Per package, the outside packages none of its files (sources, tests, tooling) may import, with
   * why (a subpath counts as its package): the host and the live view drive pages through the
   * runtime's page verbs and never a browser library (#24).
   */
  readonly forbidden: Readonly<Record<string, { readonly packages: ReadonlyArray<string>; readonly why: string }>>
  /**
   * Per package, an `@errands/*` package its shipped sources may import only in the files named (the ones that
   * compose the engine), with why: the host's faces reach errands through the session boundary, and only its
   * composition files build the supervisor under it (ADR 0044).
   */
  readonly boundary: Readonly<
    Record<string, { readonly package: string; readonly only: ReadonlyArray<string>; readonly why: string }>
  >
  readonly exceptions: ReadonlyArray<Exception>
}

/** How a file counts: shipped source, a test (`*.test.ts`), or tooling beside the package (`bench/`). */
export type FileKind = 'source' | 'test' | 'tooling'

/**
 * Classifies a file of the package in `dir`. @example kindOf('packages/host', 'packages/host/bench/overhead.ts') //
 * 'tooling'
 */
export const kindOf = (dir: string, path: string): FileKind => {
  if (/\.test\.tsx?$/.test(path)) return 'test'
  return path.slice(dir.length + 1).startsWith('bench/') ? 'tooling' : 'source'
}

const BUILTINS = new Set(builtinModules)
const isRelative = (specifier: string): boolean => specifier.startsWith('./') || specifier.startsWith('../')
const isBuiltin = (specifier: string): boolean =>
  specifier.startsWith('node:') || BUILTINS.has(specifier.split('/')[0]!)

/**
 * The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. @example
 * packageOf('@modelcontextprotocol/sdk/types.js') // '@modelcontextprotocol/sdk'
 */
export const packageOf = (specifier: string): string => {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}

/**
 * Every rule broken in `packages`, minus the accepted exceptions; an exception that no longer
 * matches anything is reported too (rule `table`), so the list cannot go stale.
 */
export const checkImports = (packages: ReadonlyArray<WorkspacePackage>, rules: Rules): Array<Violation> => {
  const found: Array<Violation> = []
  const report = (rule: Rule, file: string, line: number, specifier: string, why: string): void => {
    found.push({
      rule,
      file,
      line,
      import: specifier,
      message: `${file}:${line} imports '${specifier}': ${why} (rule: ${rule})`,
    })
  }
  for (const pkg of packages) {
    const name = pkg.manifest.name
    const allowed = rules.deps[name]
    if (allowed === undefined) {
      report(
        'table',
        `${pkg.dir}/package.json`,
        1,
        name,
        `${name} has no entry in the DEPS table (scripts/imports.rules.ts); add one naming the @errands/* packages ` +
          `it may import`,
      )
    }
    const pure = rules.pure[name]
    const forbidden = rules.forbidden[name]
    const boundary = rules.boundary[name]
    const declared = new Set([
      ...Object.keys(pkg.manifest.dependencies ?? {}),
      ...Object.keys(pkg.manifest.peerDependencies ?? {}),
    ])
    const used = new Set<string>()
    for (const file of pkg.files) {
      const kind = kindOf(pkg.dir, file.path)
      for (const { specifier, line } of file.imports) {
        if (isRelative(specifier)) {
          const target = posix.normalize(posix.join(posix.dirname(file.path), specifier))
          if (!target.startsWith(`${pkg.dir}/`)) {
            report(
              'escapes',
              file.path,
              line,
              specifier,
              `a relative import must stay inside ${pkg.dir}/; it reaches ${target} (import the other package by its ` +
                `name, or move the shared code)`,
            )
          }
          continue
        }
        const target = isBuiltin(specifier) ? specifier : packageOf(specifier)
        if (forbidden?.packages.includes(target)) {
          report(
            'forbidden',
            file.path,
            line,
            specifier,
            `${name} may never import ${target}: ${forbidden.why} (FORBIDDEN in scripts/imports.rules.ts)`,
          )
          continue
        }
        if (pure !== undefined) {
          const ok = kind === 'source' ? pure.source : pure.test
          if (!ok.includes(target)) {
            report(
              'pure',
              file.path,
              line,
              specifier,
              `${name} is pure and its ${kind === 'source' ? 'sources' : 'tests'} may import only ${ok.join(', ')} ` +
                `and their own files (STYLE §1: no I/O, no clock, no effect or browser libraries)`,
            )
            continue
          }
        }
        if (isBuiltin(specifier)) continue
        if (target.startsWith('@errands/') && target !== name && allowed !== undefined && !allowed.includes(target)) {
          report(
            'direction',
            file.path,
            line,
            specifier,
            `${name} may import only ${allowed.length === 0 ? 'no @errands/* package' : allowed.join(', ')} (DEPS in ` +
              `scripts/imports.rules.ts)`,
          )
        }
        if (kind === 'source' && target === boundary?.package && !boundary.only.includes(file.path)) {
          report(
            'boundary',
            file.path,
            line,
            specifier,
            `only ${boundary.only.join(', ')} may import ${target} in ${name}: ${boundary.why} (BOUNDARY in ` +
              `scripts/imports.rules.ts)`,
          )
        }
        if (kind !== 'source' || target === name) continue
        used.add(target)
        if (!declared.has(target)) {
          const dev = pkg.manifest.devDependencies?.[target] !== undefined
          report(
            'undeclared',
            file.path,
            line,
            specifier,
            `${target} is not in ${pkg.dir}/package.json dependencies or ` +
              `peerDependencies${dev ? ' (it is a devDependency, which an installed package does not get)' : ''}`,
          )
        }
      }
    }
    for (const dep of declared) {
      if (!used.has(dep)) {
        found.push({
          rule: 'unused',
          file: `${pkg.dir}/package.json`,
          line: 1,
          import: dep,
          message:
            `${pkg.dir}/package.json declares '${dep}' but no non-test file of ${name} imports it; remove it, ` +
            `move it to devDependencies, or list it as an exception with a reason (rule: unused)`,
        })
      }
    }
  }
  const matches = (v: Violation, e: Exception): boolean =>
    v.rule === e.rule &&
    v.import === e.import &&
    (v.file === e.where || (v.rule === 'unused' && v.file === `${dirOf(packages, e.where)}/package.json`))
  const kept = found.filter((v) => !rules.exceptions.some((e) => matches(v, e)))
  for (const e of rules.exceptions) {
    if (!found.some((v) => matches(v, e))) {
      kept.push({
        rule: 'table',
        file: 'scripts/imports.rules.ts',
        line: 1,
        import: e.import,
        message:
          `the exception for '${e.import}' in ${e.where} (rule ${e.rule}) matches nothing any more; remove it ` +
          `(rule: table)`,
      })
    }
  }
  return kept
}

const dirOf = (packages: ReadonlyArray<WorkspacePackage>, name: string): string | undefined =>
  packages.find((p) => p.manifest.name === name)?.dir

/** Reads the workspaces named in the root package.json (`machines`, `packages/*`) and scans their files. */
export const readWorkspace = (root: string): Array<WorkspacePackage> => {
  const read = (file: string): unknown => JSON.parse(readFileSync(join(root, file), 'utf8'))
  const { workspaces } = read('package.json') as { workspaces: ReadonlyArray<string> }
  const dirs = workspaces.flatMap((w) => {
    if (!w.endsWith('/*')) return [w]
    const parent = w.slice(0, -2)
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `${parent}/${e.name}`)
  })
  // A folder without a package.json (one being set up) is no package; a broken one throws.
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => {
      const manifest = read(`${dir}/package.json`) as Manifest
      const files = sourcesUnder(root, dir).map((path) => ({
        path,
        imports: scan(path, readFileSync(join(root, path), 'utf8')).imports,
      }))
      return { dir, manifest, files }
    })
}
