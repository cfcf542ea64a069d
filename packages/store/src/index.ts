export * from './errors.ts'
export {
  ErrandId,
  ParkedRecordSchema,
  StorageStateSchema,
  type ParkedEntry,
  type ParkedRecord,
  type SealedFile,
} from './record.ts'
export { DAY_MS, DEFAULT_RETENTION, toDrop, type Retention } from './retention.ts'
export { CACHEDIR_TAG, BACKUP_EXCLUDE, isProtectedPath } from './markers.ts'
export { FORMAT_VERSION, MAGIC } from './format.ts'
export { ERRANDS_DIR, errandHash, fileNameFor, storeDirKey } from './disk.ts'
export { nodeFs, type StoreFs } from './fs.ts'
export type { SealedStoreOptions, SealedStoreShape, StoreProblem } from './shape.ts'
export { SealedStore } from './SealedStore.ts'
// The building blocks a store elsewhere (the Postgres store, @errands/store-pg) keeps the same
// format, AAD, key handling, checks and retention with.
export {
  claimedErrandId,
  deviceKey,
  HEADER_READ_BYTES,
  KEY_BYTES,
  parseHeader,
  seal,
  unseal,
  type DeviceKey,
  type Header,
} from './format.ts'
export { KEY_FILE, loadOrCreateKey, suppliedKey } from './key.ts'
export { applyUpdate, openRecord, sealRecord, unreadable } from './sealing.ts'
export { byAge } from './retention.ts'
export { decodeOptions, decodeRetention } from './shape.ts'
