/**
 * Property tests explore fresh random cases on every developer run, but CI runs a fixed seed
 * budget so a landing never depends on luck. Any run can be replayed exactly with the seed and
 * path fast-check prints: `FC_SEED=<seed> FC_PATH=<path> npx vitest run <file>`.
 */
import fc from 'fast-check'

const seed = process.env.FC_SEED ?? (process.env.CI ? '20261202' : undefined)
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) })
