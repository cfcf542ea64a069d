export * from './config.ts'
export { CallError, Errand, Verb } from './ErrandEntity.ts'
export { forwardingBrowsing, ownerHandlers, type ErrandClient } from './forward.ts'
export { errandOwnerLayer } from './owner.ts'
export { makeOwnerBook, Owners, OWNERS_TABLE, type Orphan, type OwnerBook } from './owners.ts'
export { clusterPerson } from './person.ts'
export { makePgSettings, PERSON_SETTINGS_TABLE, PgSettings } from './personSettings.ts'
export { PASSWORDS_TABLE, PgVault, pgVaultStorage } from './vault.ts'
export { Allow, Ask } from './lendRpcs.ts'
export { hostCluster, selfAddress, type HostClusterOptions } from './layer.ts'
export { loadClusterKey } from './key.ts'
export {
  HANDSHAKE_DEADLINE_MS,
  makeTlsSocketServer,
  PSK_IDENTITY,
  RUNNER_TLS,
  runnerPsk,
  runnerTlsClientOptions,
  runnerTlsServerOptions,
  tlsClientProtocol,
  tlsClusterSocket,
  tlsSocketServer,
} from './transport.ts'
