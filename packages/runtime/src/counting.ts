/**
 * A runtime that counts the calls made at its seam: every member function called on it, and on
 * its `pages`, `files` and `secrets`, is named in `calls` (`'pages.go'`, `'tabs'` …) before the
 * real runtime answers. What the runtime does inside (its page owner over its own verbs) is not a
 * call at the seam. Tests prove with it that a host verb is one runtime call
 * (docs/adr/0049-runtime-owns-the-page.md).
 *
 * @example
 * const { runtime, calls } = countingRuntime(MemoryRuntime.make())
 * calls.length = 0
 * yield* runtime.pages.go(id, 'http://93.184.216.34/', 5_000)
 * calls // ['pages.go']
 */
import type { RuntimeShape } from './Runtime.ts'

const PARTS = new Set<PropertyKey>(['pages', 'files', 'secrets'])

/**
 * Wraps `runtime`; `calls` grows with each call, in order.
 *
 * @example
 * const { runtime: counted, calls } = countingRuntime(chromium)
 */
export const countingRuntime = (runtime: RuntimeShape): { runtime: RuntimeShape; calls: Array<string> } => {
  const calls: Array<string> = []
  const wrap = <T extends object>(target: T, prefix: string): T =>
    new Proxy(target, {
      get(t, key, receiver) {
        const value = Reflect.get(t, key, receiver)
        if (prefix === '' && PARTS.has(key) && typeof value === 'object' && value !== null)
          return wrap(value, `${String(key)}.`)
        if (typeof value !== 'function') return value
        return (...args: Array<unknown>) => {
          calls.push(`${prefix}${String(key)}`)
          return Reflect.apply(value, t, args)
        }
      },
    })
  return { runtime: wrap(runtime, ''), calls }
}
