/**
 * Tiny helpers for the benches: medians and a timer.
 *
 * @example
 * const ms = await timed(() => work())
 */

/** The median of some numbers. @example median([3, 1, 2]) // 2 */
export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** Milliseconds one call took. @example await timed(() => page.goto(url)) */
export const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const start = performance.now()
  await run()
  return performance.now() - start
}

/** `12.3 ms` @example ms(12.345) */
export const ms = (x: number): string => `${x.toFixed(1)} ms`
