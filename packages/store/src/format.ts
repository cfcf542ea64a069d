import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto'
import { Either } from 'effect'
import type { UnreadableReason } from './errors.ts'

/*
 * The sealed file format, version 1 (docs/sealed-store.md has the full argument):
 *
 *   offset        size     field
 *   0             4        magic "ERSS"
 *   4             1        version = 1
 *   5             8        key id  = HMAC-SHA256(key, KEY_ID_LABEL)[0..8]
 *   13            8        parkedAt, uint64 big-endian, epoch ms
 *   21            4        payload length n, uint32 big-endian (ciphertext bytes, tag excluded)
 *   25            2        errand id length m, uint16 big-endian (UTF-8 bytes, 1..MAX_ID_BYTES)
 *   27            m        errand id, UTF-8
 *   27+m          12       nonce (fresh random per write)
 *   39+m          n        AES-256-GCM ciphertext of the record's JSON
 *   39+m+n        16       GCM tag
 *
 * The associated data is bytes [0, 27+m): everything before the nonce, so the version, key id,
 * parkedAt, both lengths and the errand id are authenticated along with the ciphertext.
 */

/**
 * The four bytes every sealed file starts with: `ERSS` (Errands Sealed Store).
 *
 * @example
 * Buffer.from(MAGIC).toString('latin1') // 'ERSS'
 */
export const MAGIC: Uint8Array = Uint8Array.from([0x45, 0x52, 0x53, 0x53])
/**
 * The format version this code writes and reads (byte 4 of every file).
 *
 * @example
 * file[4] === FORMAT_VERSION
 */
export const FORMAT_VERSION = 1
/**
 * Bytes of the fixed part of the header (magic … errand id length); the id follows.
 *
 * @example
 * const nonceAt = FIXED_HEADER_BYTES + idBytes
 */
export const FIXED_HEADER_BYTES = 27
/**
 * The longest errand id in UTF-8: 200 UTF-16 code units are at most 600 bytes.
 *
 * @example
 * new TextEncoder().encode(id).length <= MAX_ID_BYTES
 */
export const MAX_ID_BYTES = 600
/**
 * Enough leading bytes of a file to parse its header without reading the payload.
 *
 * @example
 * const { bytes, size } = await fs.readPrefix(path, HEADER_READ_BYTES)
 */
export const HEADER_READ_BYTES = FIXED_HEADER_BYTES + MAX_ID_BYTES
const KEY_ID_BYTES = 8
const NONCE_BYTES = 12
const TAG_BYTES = 16
/**
 * The device key's length: AES-256.
 *
 * @example
 * const raw = randomBytes(KEY_BYTES)
 */
export const KEY_BYTES = 32
const KEY_ID_LABEL = 'errands/sealed-store/key-id/v1'

/**
 * A device key ready for use: the secret as a `KeyObject` (which prints as
 * `SecretKeyObject { type: 'secret' }`, never its bytes) and its public 8-byte id.
 *
 * @example
 * const key = deviceKey(randomBytes(32))
 */
export interface DeviceKey {
  readonly secret: KeyObject
  /** Identifies the key without revealing it, so a foreign file says `foreign-key`, not `tampered`. */
  readonly id: Uint8Array
}

/**
 * Wraps 32 raw key bytes. The caller checks the length first.
 *
 * @example
 * const key = deviceKey(randomBytes(KEY_BYTES))
 */
export const deviceKey = (raw: Uint8Array): DeviceKey => {
  const secret = createSecretKey(raw)
  const id = createHmac('sha256', secret).update(KEY_ID_LABEL).digest().subarray(0, KEY_ID_BYTES)
  return { secret, id: Uint8Array.from(id) }
}

/**
 * What the plaintext header of a sealed file says. Read by `list` without decrypting; only
 * `unseal` proves it authentic.
 *
 * @example
 * const header = Either.getOrThrow(parseHeader(bytes, bytes.length))
 */
export interface Header {
  readonly version: number
  readonly keyId: Uint8Array
  readonly parkedAt: number
  readonly errandId: string
  /** Bytes before the nonce: the associated data. */
  readonly headerBytes: number
  readonly payloadBytes: number
  /** The length the whole file must have. */
  readonly totalBytes: number
}

const startsWith = (bytes: Uint8Array, prefix: Uint8Array): boolean =>
  prefix.every((b, i) => i >= bytes.length || bytes[i] === b)

/**
 * Parses a header from the first bytes of a file and the file's full size. Checks run in file
 * order, so a cut anywhere says `truncated` and the first wrong field names the reason.
 *
 * @example
 * parseHeader(new Uint8Array(0), 0) // Either.left('truncated')
 */
export const parseHeader = (bytes: Uint8Array, fileSize: number): Either.Either<Header, UnreadableReason> => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (!startsWith(bytes, MAGIC)) return Either.left('malformed')
  if (fileSize < MAGIC.length + 1 || bytes.length < MAGIC.length + 1) return Either.left('truncated')
  const version = view.getUint8(4)
  if (version !== FORMAT_VERSION) return Either.left('unknown-version')
  if (fileSize < FIXED_HEADER_BYTES || bytes.length < FIXED_HEADER_BYTES) return Either.left('truncated')
  const keyId = bytes.slice(5, 5 + KEY_ID_BYTES)
  const parkedAt = view.getBigUint64(13)
  const payloadBytes = view.getUint32(21)
  const idBytes = view.getUint16(25)
  if (idBytes === 0 || idBytes > MAX_ID_BYTES || parkedAt > BigInt(Number.MAX_SAFE_INTEGER)) {
    return Either.left('malformed')
  }
  const headerBytes = FIXED_HEADER_BYTES + idBytes
  if (fileSize < headerBytes || bytes.length < headerBytes) return Either.left('truncated')
  let errandId: string
  try {
    errandId = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(FIXED_HEADER_BYTES, headerBytes))
  } catch {
    return Either.left('malformed')
  }
  const totalBytes = headerBytes + NONCE_BYTES + payloadBytes + TAG_BYTES
  if (fileSize < totalBytes) return Either.left('truncated')
  if (fileSize > totalBytes) return Either.left('malformed')
  return Either.right({ version, keyId, parkedAt: Number(parkedAt), errandId, headerBytes, payloadBytes, totalBytes })
}

/**
 * The errand id a header names, read from its fixed place even when other fields are damaged
 * (a newer version, a wrong key id): `undefined` when there is no readable id. Not proof of
 * anything; a store trusts it only when it matches where the bytes were found.
 *
 * @example
 * claimedErrandId(seal(key, 'e1', 0, plaintext)) // 'e1'
 */
export const claimedErrandId = (bytes: Uint8Array): string | undefined => {
  if (bytes.length < FIXED_HEADER_BYTES || !MAGIC.every((b, i) => bytes[i] === b)) return undefined
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint16(25)
  if (length === 0 || length > MAX_ID_BYTES || bytes.length < FIXED_HEADER_BYTES + length) return undefined
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(
      bytes.subarray(FIXED_HEADER_BYTES, FIXED_HEADER_BYTES + length),
    )
  } catch {
    return undefined
  }
}

/**
 * Seals a record's plaintext for `errandId` under `key` with a fresh random nonce.
 * `parkedAt` must be a non-negative safe integer (the record schema guarantees it).
 *
 * @example
 * const file = seal(key, 'e1', 1_700_000_000_000, plaintext)
 */
export const seal = (key: DeviceKey, errandId: string, parkedAt: number, plaintext: Uint8Array): Uint8Array => {
  const id = new TextEncoder().encode(errandId)
  if (id.length === 0 || id.length > MAX_ID_BYTES)
    throw new RangeError(`errand id must be 1..${MAX_ID_BYTES} UTF-8 bytes`)
  const header = new Uint8Array(FIXED_HEADER_BYTES + id.length)
  const view = new DataView(header.buffer)
  header.set(MAGIC, 0)
  view.setUint8(4, FORMAT_VERSION)
  header.set(key.id, 5)
  view.setBigUint64(13, BigInt(parkedAt))
  view.setUint32(21, plaintext.length)
  view.setUint16(25, id.length)
  header.set(id, FIXED_HEADER_BYTES)
  const nonce = randomBytes(NONCE_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key.secret, nonce, { authTagLength: TAG_BYTES })
  cipher.setAAD(header)
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
  return Buffer.concat([header, nonce, body, cipher.getAuthTag()])
}

/**
 * Opens a sealed file that must belong to `errandId`: parses the header, checks the id and the
 * key id, and decrypts. Any change to any byte fails with a reason; none throws.
 *
 * @example
 * const opened = unseal(key, 'e1', file) // Either.right({ header, plaintext })
 */
export const unseal = (
  key: DeviceKey,
  errandId: string,
  file: Uint8Array,
): Either.Either<{ readonly header: Header; readonly plaintext: Uint8Array }, UnreadableReason> =>
  Either.flatMap(parseHeader(file, file.length), (header) => {
    // A file whose header names another errand was moved or edited: its name is this errand's hash.
    if (header.errandId !== errandId) return Either.left('tampered' as const)
    if (!timingSafeEqual(header.keyId, key.id)) return Either.left('foreign-key' as const)
    const nonceAt = header.headerBytes
    const tagAt = nonceAt + NONCE_BYTES + header.payloadBytes
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.secret, file.subarray(nonceAt, nonceAt + NONCE_BYTES), {
        authTagLength: TAG_BYTES,
      })
      decipher.setAAD(file.subarray(0, header.headerBytes))
      decipher.setAuthTag(file.subarray(tagAt, tagAt + TAG_BYTES))
      const plaintext = Buffer.concat([decipher.update(file.subarray(nonceAt + NONCE_BYTES, tagAt)), decipher.final()])
      return Either.right({ header, plaintext: Uint8Array.from(plaintext) })
    } catch {
      return Either.left('tampered' as const)
    }
  })
