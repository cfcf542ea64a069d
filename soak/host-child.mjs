/**
 * The host program (`runHost`, what `packages/host/dist/main.js` runs) for the soak, with two
 * additions that only the soak needs: Chromium maps the fixture sites' real host names to
 * 127.0.0.1 (the rules come from the parent, soak/sites.ts), and an IPC channel answers `heap`
 * with the process's memory after a full GC.
 *
 * Plain JavaScript on purpose (R4, issue #28): the child the soak SIGKILLs and restarts runs the
 * compiled `@errands/host` from dist/ with plain `node`, as a service manager does — no loader,
 * no transpiler at run time.
 *
 * @example
 * // spawn(process.execPath, ['--expose-gc', 'soak/host-child.mjs'], { env: { ERRANDS_SOAK_RESOLVER_RULES: 'MAP
 * *.example 127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
 */
import { runHost } from '@errands/host'

process.on('message', (message) => {
  if (message !== 'heap') return
  globalThis.gc?.()
  const m = process.memoryUsage()
  process.send?.({ heap: { heapUsed: m.heapUsed, rss: m.rss, external: m.external } })
})
// The channel must not keep the program alive after its shutdown.
process.channel?.unref()

const rules = process.env.ERRANDS_SOAK_RESOLVER_RULES
// The monitor counts the errands' browser's contexts by asking Chromium itself (never the engine's
// bookkeeping). The engine's Chromiums have no debugging port (they speak CDP over Playwright's
// pipe, issue #27), so the soak — and only the soak — opens one on a port Chromium picks and
// writes into its profile's DevToolsActivePort, where soak/os.ts reads it.
const code = await runHost({
  chromium: { extraArgs: [...(rules ? [`--host-resolver-rules=${rules}`] : []), '--remote-debugging-port=0'] },
})
process.exitCode = code
setTimeout(() => process.exit(code), 2_000).unref()
