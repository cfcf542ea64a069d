/**
 * `@errands/runtime-chromium` — the `Runtime` over local Chromium (R1): the person's main
 * context in a persistent profile, one fresh context per errand in a second Chromium, every
 * request and WebSocket through the guard (G1).
 *
 * @example
 * import { ChromiumRuntime } from '@errands/runtime-chromium'
 * const layer = ChromiumRuntime.layer({ dataDir: '/var/lib/errands' })
 */
export * from './ChromiumRuntime.ts'
export * from './options.ts'
export { redactUrls, toRuntimeError } from './failures.ts'
export { call, within } from './failures.ts'
export { ContextRuntime, type ContextEntry, type ContextSettings } from './contexts.ts'
export { pidsWithEnv, reapOrphans } from './browsers.ts'
export { restoreScript } from './localStorageRestore.ts'
export { CLIPBOARD_OWNER_TYPE, isolateClipboard } from './clipboard.ts'
export { PageWork } from './pageWork.ts'
export {
  PageScreencast,
  type PageScreencastFrame,
  type PageScreencastFrameMetadata,
  type PageScreencastOptions,
} from './screencast.ts'
export { TabBook } from './tabs.ts'
export { checkNavigation, guardBrowserRequests, guardContextWebSockets, type Log } from './containment.ts'
export { readContextStorage, removeCookiesFrom, toPlaywrightCookies } from './storage.ts'
export { crConnectionOf, openCdpChannel, routerInstalled } from './cdpChannel.ts'
export { reservePort } from './devtoolsPort.ts'
export { DevToolsClients } from './clients.ts'
export { applyInput, chromiumPages, closedTab, orDialog, type ContextSide, type OnPage } from './pageVerbs.ts'
export { RemoteRuntime, type RemoteOptions } from './remote/RemoteRuntime.ts'
export {
  makeRoutedRuntime,
  type RoutedNotes,
  type RoutedOptions,
  type RoutedReport,
  type RoutedRuntime,
} from './remote/RoutedRuntime.ts'
