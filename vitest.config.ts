import { defaultServerConditions } from 'vite'
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'

/*
 * Three tiers, each a vitest project (docs/testing.md, issue #28). The rule is by directory, so a
 * new folder lands right without touching this file:
 *   unit    — in-process, no browser: tests beside the code (machines/, packages/<name>/src/, scripts/).
 *   browser — real Chromium: every folder of test/ not listed in SYSTEM below.
 *   system  — processes started, killed and restarted; Postgres crash tests; soak; model suite;
 *             the install test: the folders in SYSTEM, and the few files named in SYSTEM_FILES.
 * `npm test` runs all three in that order (cheapest failures first); `npm test -- --project unit`
 * runs one.
 */
const SYSTEM = ['soak', 'model', 'cluster', 'store', 'store-pg', 'faults', 'install']
// Files whose subject is a process boundary (a host SIGKILLed and restarted), in folders that are
// otherwise browser tier.
const SYSTEM_FILES = ['test/errands/restart.test.ts', 'test/host/process.test.ts']

// In-repo work runs against source: `@errands/*` resolve through the `@errands/source` export condition
// to `src/*.ts`, so no build is needed to test an edit (the packages' default is `dist/`).
const conditions = ['@errands/source', ...defaultServerConditions]
const resolve = { conditions }
const ssr = { resolve: { conditions } }

const tier = (name: string, test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration => ({
  resolve,
  ssr,
  test: { name, setupFiles: ['test/setup/fast-check.ts'], ...test },
})

export default defineConfig({
  test: {
    projects: [
      tier('unit', {
        include: ['machines/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
        testTimeout: 20_000,
        sequence: { groupOrder: 0 },
        // A few CLI tests run the compiled binary.
        globalSetup: ['test/setup/build.ts'],
      }),
      // Each Chromium wants a core; this machine has two.
      tier('browser', {
        include: ['test/**/*.test.ts'],
        exclude: ['test/setup/**', ...SYSTEM.map((dir) => `test/${dir}/**`), ...SYSTEM_FILES],
        testTimeout: 120_000,
        hookTimeout: 120_000,
        maxWorkers: 2,
        sequence: { groupOrder: 1 },
        // Process-level tests start the compiled host and CLI (dist/), as a service manager does.
        globalSetup: ['test/setup/build.ts'],
      }),
      tier('system', {
        include: [...SYSTEM.map((dir) => `test/${dir}/**/*.test.ts`), ...SYSTEM_FILES],
        testTimeout: 300_000,
        hookTimeout: 180_000,
        maxWorkers: 2,
        sequence: { groupOrder: 2 },
        globalSetup: ['test/setup/build.ts', 'test/setup/postgres.ts'],
        setupFiles: ['test/setup/fast-check.ts', 'test/setup/postgres-env.ts'],
      }),
    ],
  },
})
