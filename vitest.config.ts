import { defaultServerConditions } from 'vite'
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
import { LongestFirst } from './test/setup/sequencer.ts'

/*
 * Three tiers, each a vitest project (docs/testing.md, issue #28). The rule is by directory, so a
 * new folder lands right without touching this file:
 *   unit    — in-process, no browser: tests beside the code (machines/, packages/<name>/src/, scripts/).
 *   browser — real Chromium: every folder of test/ not listed in SYSTEM below.
 *   system  — processes started, killed and restarted; Postgres crash tests; soak; model suite;
 *             the install test: the folders in SYSTEM, and the few files named in SYSTEM_FILES.
 * `npm test` runs all three in one pool of two workers, the longest files first (the sequencer's
 * order, from `test/durations.json`), so no tier waits for another's last file with a core idle;
 * `npm test -- --project unit` runs one.
 */
const SYSTEM = ['soak', 'model', 'cluster', 'store', 'store-pg', 'faults', 'install']
// Files whose subject is a process boundary (a host SIGKILLed and restarted), in folders that are
// otherwise browser tier.
const SYSTEM_FILES = ['test/errands/restart.test.ts', 'test/host/process.test.ts']
// One pool for all tiers (one group: vitest wants the same maxWorkers for it). Each Chromium
// wants a core; this machine has two.
const WORKERS = 2

// In-repo work runs against source: `@errands/*` resolve through the `@errands/source` export condition
// to `src/*.ts`, so no build is needed to test an edit (the packages' default is `dist/`).
const conditions = ['@errands/source', ...defaultServerConditions]
const resolve = { conditions }
const ssr = { resolve: { conditions } }

const tier = (name: string, test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration => ({
  resolve,
  ssr,
  // Files of a worker share its module cache instead of importing effect, xstate and Playwright
  // afresh (the unit tier: 81 s → 22 s on 2 cores). Test files clean up what they start, and
  // never lean on module state another file left.
  test: { name, isolate: false, setupFiles: ['test/setup/fast-check.ts'], ...test },
})

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      tier('unit', {
        include: ['machines/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
        testTimeout: 20_000,
        maxWorkers: WORKERS,
        sequence: { groupOrder: 0 },
        // A few CLI tests run the compiled binary.
        globalSetup: ['test/setup/build.ts'],
      }),
      tier('browser', {
        include: ['test/**/*.test.ts'],
        exclude: ['test/setup/**', ...SYSTEM.map((dir) => `test/${dir}/**`), ...SYSTEM_FILES],
        testTimeout: 120_000,
        hookTimeout: 120_000,
        maxWorkers: WORKERS,
        sequence: { groupOrder: 0 },
        // Process-level tests start the compiled host and CLI (dist/), as a service manager does.
        globalSetup: ['test/setup/build.ts'],
      }),
      tier('system', {
        include: [...SYSTEM.map((dir) => `test/${dir}/**/*.test.ts`), ...SYSTEM_FILES],
        testTimeout: 300_000,
        hookTimeout: 180_000,
        maxWorkers: WORKERS,
        sequence: { groupOrder: 0 },
        globalSetup: ['test/setup/build.ts', 'test/setup/postgres.ts'],
        setupFiles: ['test/setup/fast-check.ts', 'test/setup/postgres-env.ts'],
      }),
    ],
  },
})
