export * from './auth.ts'
export * from './bundle.ts'
export * from './cast.ts'
export * from './protocol.ts'
export * from './server.ts'
export * from './state.ts'
export { liveApi } from './endpoints.ts'
export { liveRoutes, MAX_LIVE_BODY, type LiveApiDeps, type LiveRoute } from './api.ts'
export { applyWheelInput, LiveInputBody, NotAtTheWheel, type LiveWheel } from './wheel.ts'
export {
  MAX_IMPORT_BODY,
  type LiveImportReport,
  type LivePasswordEntry,
  type LivePasswordFields,
  type LivePasswords,
  type LiveRefusedRow,
} from './passwords.ts'
