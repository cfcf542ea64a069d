/**
 * The runner socket's TLS-PSK (issue #23, K1, L7; ADR 0019) at the socket: a server built the way
 * a runner builds its own, and clients from outside — plain TCP, TLS without the key, TLS with
 * another cluster's key, and the right key.
 */
import { randomBytes } from 'node:crypto'
import * as Net from 'node:net'
import * as Tls from 'node:tls'
import { Effect, Exit, Redacted, Scope } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeTlsSocketServer, runnerPsk, runnerTlsClientOptions } from './transport.ts'

const key = Redacted.make(new Uint8Array(randomBytes(32)))
const psk = runnerPsk(key)
let scope: Scope.CloseableScope
let port = 0
/** Connections that reached the RPC handler (finished the handshake). */
let handled = 0

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(Scope.extend(makeTlsSocketServer({ host: '127.0.0.1', port: 0 }, psk), scope))
  port = (server.address as { port: number }).port
  // An echo handler stands in for the RPC server: whatever a peer's frames reach, it answers.
  Effect.runFork(
    Scope.extend(
      server.run((socket) =>
        Effect.gen(function* () {
          handled++
          const write = yield* socket.writer
          yield* socket.run((chunk) => write(chunk))
        }).pipe(Effect.scoped),
      ),
      scope,
    ),
  )
})

afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

/** What a peer reads before the connection closes, and whether its handshake finished. */
const talk = (connect: () => Net.Socket, hello: Uint8Array) =>
  new Promise<{ readonly bytes: number; readonly secure: boolean; readonly echo: string }>((resolve) => {
    const chunks: Array<Buffer> = []
    let secure = false
    const conn = connect()
    conn.on('secureConnect', () => {
      secure = true
      conn.write(hello)
    })
    conn.on('connect', () => conn instanceof Tls.TLSSocket || conn.write(hello))
    conn.on('data', (d: Buffer) => {
      chunks.push(d)
      if (Buffer.concat(chunks).length >= hello.length) conn.end()
    })
    conn.on('error', () => {})
    conn.on('close', () =>
      resolve({ bytes: Buffer.concat(chunks).length, secure, echo: Buffer.concat(chunks).toString('hex') }),
    )
  })

// A msgpack RPC frame as a runner sends it ({ _tag: 'Ping' }, the protocol's keep-alive).
const frame = Buffer.from('81a45f746167a450696e67', 'hex')

describe('the runner socket is TLS-PSK (K1, L7)', () => {
  it(
    'the PSK is derived from the key file (HKDF, a label of its own): 32 bytes, not the key, one per key, never ' +
      'printed',
    () => {
      const a = Redacted.value(psk)
      expect(a).toHaveLength(32)
      expect(Buffer.from(a).equals(Buffer.from(Redacted.value(key)))).toBe(false)
      expect(Redacted.value(runnerPsk(key)).equals(a)).toBe(true)
      expect(Redacted.value(runnerPsk(Redacted.make(new Uint8Array(32)))).equals(a)).toBe(false)
      expect(String(psk)).not.toContain(a.toString('hex'))
      expect(JSON.stringify({ psk })).not.toContain(a.toString('hex'))
    },
  )

  it('a peer with the key completes the handshake (ECDHE-PSK, TLS 1.2) and its frames are answered', async () => {
    const before = handled
    let cipher: Tls.CipherNameAndProtocol | undefined
    let ephemeral: unknown
    const seen = await talk(() => {
      const c = Tls.connect({ host: '127.0.0.1', port, ...runnerTlsClientOptions(psk) })
      c.once('secureConnect', () => {
        cipher = c.getCipher()
        ephemeral = c.getEphemeralKeyInfo()
      })
      return c
    }, frame)
    expect(seen).toEqual({ bytes: frame.length, secure: true, echo: frame.toString('hex') })
    expect(cipher).toMatchObject({ name: 'ECDHE-PSK-CHACHA20-POLY1305', version: 'TLSv1.2' })
    // Forward secrecy: a fresh key exchange per connection.
    expect(ephemeral).toMatchObject({ type: 'ECDH' })
    expect(handled).toBe(before + 1)
  })

  it(
    'refuses a plain TCP peer that speaks msgpack RPC: no reply bytes, the socket closed, the handler never ' +
      'reached',
    async () => {
      const before = handled
      const seen = await talk(() => Net.connect({ host: '127.0.0.1', port }), frame)
      expect(seen).toEqual({ bytes: 0, secure: false, echo: '' })
      expect(handled).toBe(before)
    },
  )

  it('refuses TLS with another key, TLS without a PSK, and TLS 1.3', async () => {
    const before = handled
    const other = runnerPsk(Redacted.make(new Uint8Array(randomBytes(32))))
    const attempts = [
      () => Tls.connect({ host: '127.0.0.1', port, ...runnerTlsClientOptions(other) }),
      () => Tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }),
      () =>
        Tls.connect({
          host: '127.0.0.1',
          port,
          ...runnerTlsClientOptions(psk),
          minVersion: 'TLSv1.3',
          maxVersion: 'TLSv1.3',
        }),
    ]
    for (const connect of attempts) expect(await talk(connect, frame)).toEqual({ bytes: 0, secure: false, echo: '' })
    expect(handled).toBe(before)
  })

  it(
    'closes a peer that does not finish the handshake in time — silent, or trickling a hello byte by byte — and ' +
      'keeps a member that finished it, idle, open past that time (K1)',
    async () => {
      const deadlineMs = 400
      const scoped = Effect.runSync(Scope.make())
      try {
        const server = await Effect.runPromise(
          Scope.extend(
            makeTlsSocketServer({ host: '127.0.0.1', port: 0 }, psk, { handshakeDeadlineMs: deadlineMs }),
            scoped,
          ),
        )
        const at = (server.address as { port: number }).port
        Effect.runFork(
          Scope.extend(
            server.run((socket) =>
              Effect.gen(function* () {
                const write = yield* socket.writer
                yield* socket.run((chunk) => write(chunk))
              }).pipe(Effect.scoped),
            ),
            scoped,
          ),
        )
        const started = Date.now()
        /** Resolves with the ms from the start to the runner closing `conn`. */
        const closed = (conn: Net.Socket) =>
          new Promise<number>((resolve) => {
            conn.on('error', () => {})
            conn.on('close', () => resolve(Date.now() - started))
          })
        const member = Tls.connect({ host: '127.0.0.1', port: at, ...runnerTlsClientOptions(psk) })
        const memberClosed = closed(member)
        await new Promise((resolve) => member.once('secureConnect', resolve))
        const silent = Net.connect({ host: '127.0.0.1', port: at })
        const trickling = Net.connect({ host: '127.0.0.1', port: at })
        // A TLS record header announcing a long hello, then one byte of it every 50 ms: never a whole hello.
        trickling.write(Buffer.from([0x16, 0x03, 0x01, 0x3f, 0xff]))
        const drip = setInterval(() => trickling.writable && trickling.write(Buffer.from([0x01])), 50)
        const [silentMs, tricklingMs] = await Promise.all([closed(silent), closed(trickling)])
        clearInterval(drip)
        expect(silentMs).toBeGreaterThanOrEqual(deadlineMs - 50)
        expect(tricklingMs).toBeGreaterThanOrEqual(deadlineMs - 50)
        // Past the deadline the member's connection still carries its frames.
        const echoed = new Promise<string>((resolve) => member.once('data', (d: Buffer) => resolve(d.toString('hex'))))
        member.write(frame)
        expect(await echoed).toBe(frame.toString('hex'))
        member.end()
        expect(await memberClosed).toBeGreaterThan(Math.max(silentMs, tricklingMs))
      } finally {
        await Effect.runPromise(Scope.close(scoped, Exit.void))
      }
    },
  )
})
