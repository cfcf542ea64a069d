/**
 * A peer on the network path to a runner socket (issue #23, K1, L7): it speaks the cluster's RPC
 * — msgpack frames exactly as a runner's client sends them — over plain TCP or over TLS with
 * whatever key it holds, and reports what came back.
 *
 * @example
 * const seen = await speakRpc(7787, { psk: undefined }) // plain TCP
 * seen.bytes // 0 when the runner socket is TLS-PSK
 */
import * as Net from 'node:net'
import * as Tls from 'node:tls'
import { RpcSerialization } from '@effect/rpc'
import { runnerTlsClientOptions } from '@errands/cluster'
import type { Redacted } from 'effect'

/** What a peer got from a runner port. */
export interface Heard {
  /** The TLS handshake finished (always false for plain TCP). */
  readonly secure: boolean
  /** Every byte the runner sent back. */
  readonly bytes: number
  /** Those bytes decoded as RPC messages (`Pong`, `Exit` …). */
  readonly replies: ReadonlyArray<{ readonly _tag: string; readonly requestId?: string }>
  /** The runner closed the connection (rather than the peer giving up). */
  readonly closedByRunner: boolean
}

/**
 * The frames a runner's client opens with: the protocol's keep-alive `Ping`, then a request for
 * the `Runners` group's `Ping` (the health check every runner answers).
 */
export const runnerFrames = (): Buffer => {
  const parser = RpcSerialization.msgPack.unsafeMake()
  return Buffer.concat([
    parser.encode({ _tag: 'Ping' }) as Uint8Array,
    parser.encode({ _tag: 'Request', id: '1', tag: 'Ping', payload: {}, headers: [] }) as Uint8Array,
  ])
}

/**
 * Connects to `port` (plain TCP when `psk` is undefined, else TLS-PSK with it), sends
 * `runnerFrames()`, and resolves when the runner closes the connection, or once both replies are
 * in, or after `giveUpMs` (a runner that answers nothing and holds the socket open).
 *
 * @example
 * await speakRpc(port, { psk: runnerPsk(key) }) // { secure: true, replies: [Pong, Exit] }
 */
export const speakRpc = (
  port: number,
  options: {
    readonly psk: Redacted.Redacted<Buffer> | undefined
    readonly tls?: Tls.ConnectionOptions
    readonly giveUpMs?: number
  },
): Promise<Heard> =>
  new Promise((resolve) => {
    const parser = RpcSerialization.msgPack.unsafeMake()
    const replies: Array<{ _tag: string; requestId?: string }> = []
    let bytes = 0
    let secure = false
    let done = false
    const conn: Net.Socket =
      options.psk === undefined && options.tls === undefined
        ? Net.connect({ host: '127.0.0.1', port })
        : Tls.connect({
            host: '127.0.0.1',
            port,
            ...(options.psk === undefined ? {} : runnerTlsClientOptions(options.psk)),
            ...options.tls,
          })
    const finish = (closedByRunner: boolean) => {
      if (done) return
      done = true
      clearTimeout(timer)
      conn.destroy()
      resolve({ secure, bytes, replies, closedByRunner })
    }
    const timer = setTimeout(() => finish(false), options.giveUpMs ?? 10_000)
    if (conn instanceof Tls.TLSSocket)
      conn.on('secureConnect', () => {
        secure = true
        conn.write(runnerFrames())
      })
    else conn.on('connect', () => conn.write(runnerFrames()))
    conn.on('data', (chunk: Buffer) => {
      bytes += chunk.length
      try {
        replies.push(...(parser.decode(new Uint8Array(chunk)) as Array<{ _tag: string; requestId?: string }>))
      } catch {
        // Not RPC (a TLS alert, say): counted in bytes all the same.
      }
      if (replies.some((r) => r._tag === 'Pong') && replies.some((r) => r._tag === 'Exit')) finish(false)
    })
    conn.on('error', () => {})
    conn.on('close', () => finish(true))
  })
