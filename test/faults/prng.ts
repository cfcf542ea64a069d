/**
 * A small seeded PRNG (mulberry32), so a failing fault run can be replayed with its seed.
 *
 * @example
 * const random = prng(42)
 * random() // 0 ≤ x < 1
 */
export const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
