export * from './auth.ts'
export * from './bundle.ts'
export * from './cast.ts'
export * from './protocol.ts'
export * from './server.ts'
export * from './questions.ts'
export { applyWheelInput, NotAtTheWheel, type LiveWheel } from './wheel.ts'
export {
  MAX_IMPORT_BODY,
  type LiveImportReport,
  type LivePasswordEntry,
  type LivePasswordFields,
  type LivePasswords,
  type LiveRefusedRow,
} from './passwords.ts'
