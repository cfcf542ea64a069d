/**
 * `@errands/host` — the local browser host (B1–B7): an HTTP API on 127.0.0.1 that gives every
 * agent session key its own errand context, the person's endpoints behind a token, health, and
 * errands on a remote DevTools browser when one is configured (R2).
 *
 * @example
 * import { runHost } from '@errands/host'
 * process.exitCode = await runHost() // prints "errands host listening on http://127.0.0.1:7777"
 */
export * from './errors.ts'
export * from './sessionKey.ts'
export * from './config.ts'
export * from './schemas.ts'
export * from './answers.ts'
export * from './filesAnswers.ts'
export * from './browsing/Browsing.ts'
export { NoDialog, type DialogView } from './browsing/dialog.ts'
// PUT /v1/session/proxy's service: a cluster sends it to the errand's owner (K1).
export { SessionProxy, type SessionProxyShape, type SessionProxyView } from './browsing/SessionProxy.ts'
export { makeBrowsing, type BrowsingOptions } from './browsing/make.ts'
// A fill's body and answer: data, so a cluster carries the fill to the errand's owner (W2, K1).
export {
  FillPasswordAnswer,
  FillPasswordBody,
  type FillPasswordError,
  type FillSecrets,
} from './person/passwords.ts'
export * from './person/Person.ts'
export { makePerson } from './person/make.ts'
export * from './health.ts'
export * from './stateless/Stateless.ts'
export type { FetchResult } from './stateless/fetch.ts'
export type { LocalService } from './stateless/localhosts.ts'
export { makeApp, type App, type AppOptions } from './http/app.ts'
// The declared API (issue #24): its endpoints, its OpenAPI 3.1 document and a typed client of it.
export { api, type Api } from './http/api.ts'
export { endpointsOf, type Endpoint } from '@errands/edge'
export { hostOpenApi } from './http/openapi.ts'
export {
  AnswerMismatch,
  answerMismatch,
  call,
  endpointAt,
  v1Client,
  type Client,
  type ClientOptions,
  type Reply as ClientReply,
} from './http/client.ts'
export * from './routeAnswers.ts'
export { ownHost, ownOrigin } from '@errands/edge'
export * from './engine.ts'
export * from './serve.ts'
export * from './run.ts'
export {
  bindErrand,
  errandBrowserOf,
  isMcpPath,
  MCP_PATH,
  mountMcp,
  toolRunner,
  type McpMount,
  type McpMountOptions,
} from './mcp.ts'
export { runMcpStdio, type McpStdioOptions } from './mcpStdio.ts'
export { everywhere, Placement, type PlacementShape, type TakenElsewhere } from './placement.ts'
export { localWheel, PersonWheel, type PersonWheelShape } from './wheel.ts'
// The live view's refusal of input without the wheel: a cluster's owner answers it for the others (K4).
export { NotAtTheWheel } from '@errands/liveview'
// What crosses between hosts for a tool call (the cluster's entity carries it).
export { ToolResult } from '@errands/mcp'
export { loadToken, TOKEN_FILE } from './token.ts'
export { testApp, TEST_TOKEN, type TestApp } from './http/testing.ts'
