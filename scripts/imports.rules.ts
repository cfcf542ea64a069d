/**
 * The import rules of the workspace in one place (issue #24; checked by `imports.test.ts`, the
 * checker is `imports.ts`). To let a package import another `@errands/*` package, add it to that
 * package's row in {@link DEPS} *and* to its package.json `dependencies` (and its tsconfig
 * `references`, which `packages.test.ts` checks); an external package only needs the package.json
 * entry. The table must stay acyclic: imports go machines ← supervisor ← runtimes, host, cli.
 *
 * @example
 * checkImports(readWorkspace(root), RULES) // [] when the tree keeps the rules
 */
import type { Exception, Rules } from './imports.ts'

/**
 * Which `@errands/*` packages each package may import, tests and bench files included: what the
 * code imports today, which is the direction docs/architecture.md draws. Only the cluster (several
 * hosts as one) and the CLI import the host.
 */
export const DEPS: Rules['deps'] = {
  '@errands/machines': [],
  '@errands/runtime': [],
  '@errands/guard': [],
  // The HTTP edge every front stands behind (issue #24, docs/edge.md): effect and node: only.
  '@errands/edge': [],
  // The egress asks the edge which local process holds a lane's caller (localPeer.ts).
  '@errands/egress': ['@errands/edge', '@errands/guard'],
  '@errands/store': ['@errands/runtime'],
  '@errands/store-pg': ['@errands/store'],
  '@errands/runtime-chromium': ['@errands/egress', '@errands/guard', '@errands/runtime'],
  // The session boundary (docs/architecture.md, "The seam"): the words and the one service faces act through.
  '@errands/sessions': ['@errands/machines', '@errands/runtime', '@errands/store'],
  '@errands/supervisor': [
    '@errands/edge',
    '@errands/machines',
    '@errands/runtime',
    '@errands/sessions',
    '@errands/store',
  ],
  // Lending acts on errands through the boundary; it builds its test supervisor from @errands/supervisor.
  '@errands/lending': ['@errands/runtime', '@errands/sessions', '@errands/store', '@errands/supervisor'],
  // The person's passwords (W1–W4): lending's one site rule, the store's sealing, the runtime's fill.
  '@errands/passwords': ['@errands/lending', '@errands/runtime', '@errands/store'],
  // The faces: the boundary, never the supervisor (ADR 0044).
  '@errands/daily': ['@errands/edge', '@errands/machines', '@errands/sessions'],
  '@errands/devtools': ['@errands/edge', '@errands/guard', '@errands/runtime', '@errands/sessions'],
  // The live view streams through the runtime's screencast: no browser library (issue #24).
  '@errands/liveview': ['@errands/edge', '@errands/runtime', '@errands/sessions'],
  // MCP narrows the runtime's opaque page (RawPage) to Playwright's for its locator tools (#24).
  '@errands/mcp': ['@errands/daily', '@errands/edge', '@errands/runtime', '@errands/sessions'],
  '@errands/engine': [
    '@errands/lending',
    '@errands/runtime',
    '@errands/runtime-chromium',
    '@errands/sessions',
    '@errands/store',
    '@errands/store-pg',
    '@errands/supervisor',
  ],
  '@errands/host': [
    '@errands/daily',
    '@errands/devtools',
    '@errands/edge',
    '@errands/egress',
    '@errands/engine',
    '@errands/guard',
    '@errands/lending',
    '@errands/liveview',
    '@errands/mcp',
    '@errands/passwords',
    '@errands/runtime',
    '@errands/runtime-chromium',
    '@errands/sessions',
    '@errands/store',
    '@errands/supervisor',
  ],
  '@errands/cluster': [
    '@errands/devtools',
    '@errands/edge',
    '@errands/host',
    '@errands/lending',
    '@errands/passwords',
    '@errands/runtime',
    '@errands/sessions',
    '@errands/store',
    '@errands/store-pg',
    '@errands/supervisor',
  ],
  // The CLI's tests drive it with the memory runtime (a devDependency).
  '@errands/cli': ['@errands/cluster', '@errands/host', '@errands/runtime', '@errands/sessions', '@errands/supervisor'],
}

/**
 * Packages that must stay pure (STYLE §1): the only modules they may import besides their own
 * files. No `node:` module, no `@errands/*` package, no effect, no browser library.
 */
export const PURE: Rules['pure'] = {
  '@errands/machines': { source: ['xstate'], test: ['xstate', 'vitest', '@xstate/graph'] },
}

/**
 * Outside packages a package may never import, in any of its files (issue #24, "runtimes own
 * pages"): the host and the live view reach pages through the runtime's page verbs
 * (`@errands/runtime`'s pages.ts and screencast.ts); only runtimes, and MCP's locator tools on the
 * runtime's opaque `RawPage`, touch Playwright.
 */
export const FORBIDDEN: Rules['forbidden'] = {
  '@errands/host': {
    packages: ['playwright-core', 'playwright'],
    why:
      "the host drives pages through the runtime's page verbs (runtime.pages); a runtime owns its browser library " +
      '(ADR 0028)',
  },
  '@errands/liveview': {
    packages: ['playwright-core', 'playwright'],
    why: "the live view streams through the runtime's screencast; a runtime owns its browser library (ADR 0028)",
  },
}

/**
 * The session boundary inside the host (ADR 0044): its faces — HTTP, MCP, the person's routes, health — act on
 * errands through `Sessions` of @errands/sessions; only the files that compose the engine build the supervisor.
 */
export const BOUNDARY: Rules['boundary'] = {
  '@errands/host': {
    package: '@errands/supervisor',
    only: ['packages/host/src/engine.ts', 'packages/host/src/config.ts', 'packages/host/src/person/make.ts'],
    why: 'a face acts on errands through the session boundary (@errands/sessions), never on the supervisor',
  },
}

/** Violations accepted on purpose, each with its reason; one that stops matching fails the check. */
export const EXCEPTIONS: ReadonlyArray<Exception> = [
  // machines/purity.test.ts is the machines' other lint rule: it reads their sources to look for clocks and timers.
  { rule: 'pure', where: 'machines/purity.test.ts', import: 'node:fs', reason: 'reads the machine sources it checks' },
  {
    rule: 'pure',
    where: 'machines/purity.test.ts',
    import: 'node:path',
    reason: 'reads the machine sources it checks',
  },
  {
    rule: 'undeclared',
    where: 'packages/liveview/src/bundle.ts',
    import: 'esbuild',
    reason:
      'loaded only when running from src/*.ts in the repo; the compiled package serves the dist/web bundle the build ' +
      'wrote, so an install never needs esbuild (ADR 0008)',
  },
  // Test support kept in src/ because test/store-pg runs the same suites against rows; index.ts does not export it, so
  // nothing installed loads it.
  {
    rule: 'undeclared',
    where: 'packages/store/src/contract.ts',
    import: '@effect/vitest',
    reason: 'test support, not exported',
  },
  { rule: 'undeclared', where: 'packages/store/src/damage.ts', import: 'vitest', reason: 'test support, not exported' },
  {
    rule: 'unused',
    where: '@errands/cluster',
    import: '@effect/workflow',
    reason:
      'a peer dependency of @effect/cluster: declared so the install gets the version the cluster was tested with',
  },
  {
    rule: 'escapes',
    where: 'packages/runtime-chromium/bench/guard.ts',
    import: '../../../test/fixtures/sites.ts',
    reason:
      "a benchmark borrowing the tests' loopback sites; bench/ is not shipped (files: dist), moving it to the " +
      "top-level bench/ is the runtime's owner's call",
  },
  {
    rule: 'escapes',
    where: 'packages/runtime-chromium/bench/restore.ts',
    import: '../../../test/fixtures/sites.ts',
    reason: "a benchmark borrowing the tests' loopback sites; bench/ is not shipped (files: dist)",
  },
]

/** The rules `imports.test.ts` holds the repo to. */
export const RULES: Rules = {
  deps: DEPS,
  pure: PURE,
  forbidden: FORBIDDEN,
  boundary: BOUNDARY,
  exceptions: EXCEPTIONS,
}
