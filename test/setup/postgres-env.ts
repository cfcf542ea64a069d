/**
 * Setup file (every test file of the tiers that start the shared Postgres): puts the run's
 * server where test/fixtures/postgres.ts looks for it, so test files need no change.
 */
import { inject } from 'vitest'

const shared = inject('errandsPostgres')
if (shared !== undefined) process.env.ERRANDS_TEST_POSTGRES = shared
