/**
 * The host program (`runHost`, what `packages/host/src/main.ts` runs) for the soak, with two
 * additions that only the soak needs: Chromium maps the fixture sites' real host names to
 * 127.0.0.1, and an IPC channel answers `heap` with the process's memory after a full GC.
 *
 * Started by soak/host.ts as `node --expose-gc --import tsx soak/host-child.ts`.
 *
 * @example
 * // spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'soak/host-child.ts'], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
 */
import { runHost } from '@errands/host'
import { SOAK_RESOLVER_RULES } from './sites.ts'

process.on('message', (message) => {
  if (message !== 'heap') return
  ;(globalThis as { gc?: () => void }).gc?.()
  const m = process.memoryUsage()
  process.send?.({ heap: { heapUsed: m.heapUsed, rss: m.rss, external: m.external } })
})
// The channel must not keep the program alive after its shutdown.
process.channel?.unref()

const code = await runHost({
  chromium: { extraArgs: [`--host-resolver-rules=${SOAK_RESOLVER_RULES}`] },
})
process.exitCode = code
setTimeout(() => process.exit(code), 2_000).unref()
