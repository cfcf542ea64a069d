/**
 * The Daily Browser extension's id. Chrome derives an unpacked extension's id from the manifest's
 * `key` (the public key, DER SubjectPublicKeyInfo, base64): the first 128 bits of its SHA-256,
 * written in hex with the digits 0–f mapped to the letters a–p. The same key gives the same id in
 * Chrome and Edge and on every machine, so the door can pin the Origin it accepts.
 */
import { createHash } from 'node:crypto'

/**
 * The id Chrome gives an extension whose manifest `key` is `publicKeyBase64`.
 *
 * @example
 * extensionIdOf(manifest.key) // 'dmlklmnegbjkhpodgecphlidpippljbl'
 */
export const extensionIdOf = (publicKeyBase64: string): string =>
  [...createHash('sha256').update(Buffer.from(publicKeyBase64, 'base64')).digest('hex').slice(0, 32)]
    .map((c) => String.fromCharCode(97 + Number.parseInt(c, 16)))
    .join('')

/**
 * The id of the extension in `extension/` (its manifest `key`; a test keeps the two in step).
 * The door accepts only `chrome-extension://<this id>` unless told otherwise.
 *
 * @example
 * `chrome-extension://${dailyExtensionId}` // the Origin the door expects
 */
export const dailyExtensionId = 'dmlklmnegbjkhpodgecphlidpippljbl'
