/**
 * The runner socket, authenticated and encrypted (issue #23, K1, L7; ADR 0019): TLS 1.2 with a
 * pre-shared key (TLS-PSK) derived from the cluster key file every host already holds. Both ends
 * prove they hold the key in the handshake itself, so a peer without it never gets to send or
 * read one RPC frame; the key exchange is ephemeral (ECDHE), so a key stolen later does not open
 * traffic recorded before.
 *
 * These are `@effect/platform-node`'s `NodeClusterSocket` layers (`layerSocketServer`,
 * `layerClientProtocol`) with `tls.createServer` / `tls.connect` where theirs use plain `net`;
 * everything above the socket (msgpack RPC, `SocketRunner`, runner health pings) is
 * `@effect/cluster`'s own.
 *
 * @example
 * const psk = runnerPsk(key)
 * Layer.provide(SocketRunner.layer, [tlsSocketServer(psk), tlsClientProtocol(psk)])
 */
import { hkdfSync } from 'node:crypto'
import * as Tls from 'node:tls'
import {
  RunnerHealth,
  Runners,
  ShardingConfig,
  SocketRunner,
  SqlMessageStorage,
  SqlRunnerStorage,
} from '@effect/cluster'
import { Socket, SocketServer } from '@effect/platform'
import { NodeSocket } from '@effect/platform-node'
import { RpcClient, RpcSerialization } from '@effect/rpc'
import { Deferred, Effect, Exit, FiberSet, Layer, Option, Redacted, Scope } from 'effect'

/** The PSK identity every runner sends (public: it names the scheme, not the key). */
export const PSK_IDENTITY = 'errands-cluster/runner/v1'

/**
 * Only this suite, only TLS 1.2: Node's `pskCallback` is the OpenSSL TLS 1.2 PSK interface, and
 * ECDHE-PSK with ChaCha20-Poly1305 is its one PSK suite with both an ephemeral key exchange
 * (forward secrecy) and an AEAD cipher.
 */
export const RUNNER_TLS = {
  ciphers: 'ECDHE-PSK-CHACHA20-POLY1305',
  minVersion: 'TLSv1.2',
  maxVersion: 'TLSv1.2',
} as const

// Domain separation: the sealing key itself never goes into TLS; what TLS holds opens no record.
const HKDF_SALT = 'errands cluster'
const HKDF_INFO = 'errands cluster runner socket TLS-PSK v1'

/**
 * The runner socket's PSK: HKDF-SHA256 of the cluster's device key under a label of its own, so
 * the TLS key and the key that seals errands (S1) are different keys.
 *
 * @example
 * const psk = runnerPsk(await loadClusterKey(file)) // Redacted<Buffer> of 32 bytes
 */
export const runnerPsk = (key: Redacted.Redacted<Uint8Array>): Redacted.Redacted<Buffer> =>
  Redacted.make(Buffer.from(hkdfSync('sha256', Redacted.value(key), HKDF_SALT, HKDF_INFO, 32)))

/**
 * What `tls.connect` needs to speak to a runner holding `psk` (the hosts' client protocol, and
 * a test's client).
 *
 * @example
 * tls.connect({ host, port, ...runnerTlsClientOptions(psk) })
 */
export const runnerTlsClientOptions = (psk: Redacted.Redacted<Buffer>): Tls.ConnectionOptions => ({
  ...RUNNER_TLS,
  pskCallback: () => ({ psk: Redacted.value(psk), identity: PSK_IDENTITY }),
  // No certificates: the PSK handshake itself proves the server holds the key.
  checkServerIdentity: () => undefined,
})

/**
 * The runner's TLS-PSK server options: a client that does not name our identity, or whose key
 * differs, fails the handshake (`tlsClientError`) before a byte of RPC is read.
 *
 * @example
 * tls.createServer(runnerTlsServerOptions(psk))
 */
export const runnerTlsServerOptions = (psk: Redacted.Redacted<Buffer>): Tls.TlsOptions => ({
  ...RUNNER_TLS,
  pskCallback: (_socket, identity) => (identity === PSK_IDENTITY ? Redacted.value(psk) : null),
})

/**
 * How long a connection to the runner socket has to finish the TLS-PSK handshake, from its first
 * byte of TCP, when `ERRANDS_CLUSTER_HANDSHAKE_MS` does not say (K1). A member's client gives up
 * after 2 s (`tlsClientProtocol`); a peer still silent, or still trickling a hello, after this is
 * closed rather than held.
 */
export const HANDSHAKE_DEADLINE_MS = 5_000

/**
 * A `SocketServer` over `tls.createServer` (after `NodeSocketServer.make`): only connections that
 * finished the PSK handshake reach the handler; the others — a wrong key, plain TCP, or no finished
 * handshake within `handshakeDeadlineMs` — are closed. Says where it really listens, once bound.
 *
 * @example
 * const server = yield* makeTlsSocketServer({ host: '127.0.0.1', port: 7787 }, psk)
 */
export const makeTlsSocketServer = (
  listen: { readonly host: string; readonly port: number },
  psk: Redacted.Redacted<Buffer>,
  options: { readonly handshakeDeadlineMs?: number | undefined } = {},
) =>
  Effect.gen(function* () {
    const failed = yield* Deferred.make<never, Error>()
    const pending: Array<Tls.TLSSocket> = []
    let onConnection = (conn: Tls.TLSSocket): void => void pending.push(conn)
    const server = Tls.createServer(
      // Node counts this from the connection, not from the last byte: a peer trickling a hello is cut too.
      { ...runnerTlsServerOptions(psk), handshakeTimeout: options.handshakeDeadlineMs ?? HANDSHAKE_DEADLINE_MS },
      (conn) => onConnection(conn),
    )
    // A refused peer (plain TCP, no key, wrong key, out of time): closed here, and the error names no
    // key. A listener of this event takes Node's own destroy away: the no-op that stood here kept
    // every silent peer's socket open for good (300 still open after 135 s).
    server.on('tlsClientError', (_error, socket) => socket.destroy())
    server.on('error', (cause) => Deferred.unsafeDone(failed, Exit.fail(cause)))
    yield* Effect.addFinalizer(() => Effect.async<void>((resume) => void server.close(() => resume(Effect.void))))
    yield* Effect.async<void>(
      (resume) => void server.listen({ host: listen.host, port: listen.port }, () => resume(Effect.void)),
    ).pipe(
      Effect.raceFirst(
        Effect.mapError(
          Deferred.await(failed),
          (cause) => new SocketServer.SocketServerError({ reason: 'Open', cause }),
        ),
      ),
    )
    const run = <R, E, _>(handler: (socket: Socket.Socket) => Effect.Effect<_, E, R>) =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        const fibers = yield* FiberSet.make().pipe(Scope.extend(scope))
        const runFork = yield* FiberSet.runtime(fibers)<R>()
        const accept = (conn: Tls.TLSSocket) => {
          let error: Error | undefined
          conn.on('error', (e) => (error = e))
          const open = Effect.acquireRelease(
            Effect.suspend(
              (): Effect.Effect<Tls.TLSSocket, Socket.SocketError> =>
                error !== undefined
                  ? Effect.fail(new Socket.SocketGenericError({ reason: 'Open', cause: error }))
                  : conn.closed
                    ? Effect.fail(new Socket.SocketCloseError({ reason: 'Close', code: 1000 }))
                    : Effect.succeed(conn),
            ),
            (c) => Effect.sync(() => void (c.closed || c.destroySoon())),
          )
          runFork(
            NodeSocket.fromDuplex(open).pipe(
              Effect.flatMap(handler),
              Effect.catchAllCause((cause) => Effect.logDebug('cluster runner socket: a connection ended', cause)),
              Effect.provideService(NodeSocket.NetSocket, conn),
            ),
          )
        }
        return yield* Effect.async<never>(() => {
          const previous = onConnection
          onConnection = accept
          pending.splice(0).forEach(accept)
          return Effect.suspend(() => {
            onConnection = previous
            return Scope.close(scope, Exit.void)
          })
        }).pipe(
          Effect.raceFirst(
            Effect.mapError(
              Deferred.await(failed),
              (cause) => new SocketServer.SocketServerError({ reason: 'Unknown', cause }),
            ),
          ),
        )
      })
    const address = server.address()
    // Where it really listens (the one setting is ERRANDS_CLUSTER_HOST:PORT, K1), not where it was asked to.
    yield* Effect.logInfo(
      typeof address === 'string' || address === null
        ? `cluster runner socket listening on ${String(address)} (TLS-PSK)`
        : `cluster runner socket listening on ${address.address}:${address.port} (TLS-PSK)`,
    )
    return SocketServer.SocketServer.of({
      address:
        typeof address === 'string' || address === null
          ? { _tag: 'UnixAddress', path: String(address) }
          : { _tag: 'TcpAddress', hostname: address.address, port: address.port },
      run,
    })
  })

/**
 * The runner's listening socket, TLS-PSK (replaces `NodeClusterSocket.layerSocketServer`).
 *
 * @example
 * Layer.provide(SocketRunner.layer, tlsSocketServer(psk))
 */
export const tlsSocketServer = (
  psk: Redacted.Redacted<Buffer>,
  handshakeDeadlineMs?: number,
): Layer.Layer<SocketServer.SocketServer, SocketServer.SocketServerError, ShardingConfig.ShardingConfig> =>
  Layer.scoped(
    SocketServer.SocketServer,
    Effect.gen(function* () {
      const config = yield* ShardingConfig.ShardingConfig
      const listen = Option.orElse(config.runnerListenAddress, () => config.runnerAddress)
      if (Option.isNone(listen)) return yield* Effect.die('tlsSocketServer: the runner has no address to listen on')
      return yield* makeTlsSocketServer(listen.value, psk, { handshakeDeadlineMs })
    }),
  )

/**
 * How this runner opens a connection to another: `tls.connect` with the PSK (replaces
 * `NodeClusterSocket.layerClientProtocol`; also what the runner health pings use).
 *
 * @example
 * Layer.provide(SocketRunner.layer, tlsClientProtocol(psk))
 */
export const tlsClientProtocol = (
  psk: Redacted.Redacted<Buffer>,
): Layer.Layer<Runners.RpcClientProtocol, never, RpcSerialization.RpcSerialization> =>
  Layer.effect(
    Runners.RpcClientProtocol,
    Effect.gen(function* () {
      const serialization = yield* RpcSerialization.RpcSerialization
      return (address) =>
        Effect.gen(function* () {
          const socket = yield* NodeSocket.fromDuplex(
            Effect.scopeWith((scope) => {
              let conn: Tls.TLSSocket | undefined
              return Effect.flatMap(
                Scope.addFinalizer(
                  scope,
                  Effect.sync(() => void (conn !== undefined && !conn.closed && conn.destroySoon())),
                ),
                () =>
                  Effect.async<Tls.TLSSocket, Socket.SocketError>((resume) => {
                    conn = Tls.connect({ host: address.host, port: address.port, ...runnerTlsClientOptions(psk) })
                    conn.once('secureConnect', () => resume(Effect.succeed(conn!)))
                    conn.on('error', (cause) =>
                      resume(Effect.fail(new Socket.SocketGenericError({ reason: 'Open', cause }))),
                    )
                  }),
              )
            }),
            // The plain socket allows 1 s to connect; the handshake adds a round trip and some CPU on a
            // loaded machine.
            { openTimeout: 2_000 },
          )
          return yield* RpcClient.makeProtocolSocket().pipe(
            Effect.provideService(Socket.Socket, socket),
            Effect.provideService(RpcSerialization.RpcSerialization, serialization),
          )
        }).pipe(Effect.orDie)
    }),
  )

/**
 * `NodeClusterSocket.layer({ storage: 'sql', shardingConfig })` with the TLS-PSK socket: the
 * sharding, runner storage and message storage over the SQL client, msgpack RPC, and runner
 * health pinged over the same authenticated connections.
 *
 * @example
 * const sharding = tlsClusterSocket({ psk: runnerPsk(key), shardingConfig })
 */
export const tlsClusterSocket = (options: {
  readonly psk: Redacted.Redacted<Buffer>
  readonly shardingConfig: Partial<ShardingConfig.ShardingConfig['Type']>
  /** How long a connection has to finish the handshake (K1); {@link HANDSHAKE_DEADLINE_MS} when unset. */
  readonly handshakeDeadlineMs?: number | undefined
}) => {
  const client = tlsClientProtocol(options.psk)
  const health = RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(client))
  return Layer.provide(SocketRunner.layer, [tlsSocketServer(options.psk, options.handshakeDeadlineMs), client]).pipe(
    Layer.provide(health),
    Layer.provideMerge(Layer.orDie(SqlMessageStorage.layer)),
    Layer.provide(Layer.orDie(SqlRunnerStorage.layer)),
    // Only what we set, over the library's defaults: `layerFromEnv` also read undocumented variables
    // (LISTEN_HOST and LISTEN_PORT moved the runner socket to 0.0.0.0 while the log named another address, K1).
    Layer.provide(ShardingConfig.layer(options.shardingConfig)),
    Layer.provide(RpcSerialization.layerMsgPack),
  )
}
