import { defineConfig } from 'vitest/config'

// Two projects: fast unit tests beside the code, and real-Chromium tests in test/ with bounded
// concurrency — this machine has 2 cores and each Chromium wants one.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['machines/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          testTimeout: 20_000,
          // Unit tests first: they fail fast and cheaply before any Chromium starts.
          sequence: { groupOrder: 0 },
          setupFiles: ['test/setup/fast-check.ts'],
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/**/*.test.ts'],
          exclude: ['test/setup/**'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
          fileParallelism: true,
          sequence: { groupOrder: 1 },
          setupFiles: ['test/setup/fast-check.ts'],
        },
      },
    ],
  },
})
