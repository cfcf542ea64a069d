/**
 * `@errands/devtools` — a DevTools endpoint per errand (A1): any Playwright, Puppeteer or CDP
 * client connects into one isolated errand and nothing else. See docs/devtools-endpoint.md.
 *
 * @example
 * import { DevTools } from '@errands/devtools'
 * const { url } = yield* (yield* DevTools).endpoint('session:task-42')
 */
export * from './DevTools.ts'
export * from './limits.ts'
export * from './errors.ts'
export { BROWSER_METHODS } from './browserMethods.ts'
export { ErrandProxy, MAX_BROWSER_SESSIONS, MAX_IN_FLIGHT, type CloseReason, type ProxyOptions } from './proxy.ts'
export { knownMethod, PROTOCOL_VERSION } from './protocol.ts'
export { CONTEXT_METHODS, matchesFilter, SESSION_METHODS, URL_METHODS } from './targets.ts'
export { downloadParams, refusedUpload, uploadParams } from './files.ts'
export { TokenBook } from './tokens.ts'
export { HELP_DEFAULT_TIMEOUT_MS, HELP_MAX_TIMEOUT_MS, helpParams, WheelGate } from './wheel.ts'
export * from './server.ts'
