/**
 * The device key the hosts of a cluster share (S1): a record one host seals, another opens. It
 * lives in a file beside each host (never in the database it protects): 32 random bytes, or the
 * same as 64 hex digits. A file others can read is refused, like the file store's own key.
 *
 * @example
 * const key = await loadClusterKey('/etc/errands/cluster.key') // Redacted<Uint8Array>
 */
import { readFile, stat } from 'node:fs/promises'
import { Redacted } from 'effect'

/**
 * Reads the key; rejects with a message naming the file and what is wrong (never the key).
 *
 * @example
 * await loadClusterKey(path)
 */
export const loadClusterKey = async (path: string): Promise<Redacted.Redacted<Uint8Array>> => {
  const info = await stat(path).catch(() => undefined)
  if (info === undefined)
    throw new Error(
      `The cluster key file ${path} does not exist; make one with: head -c 32 /dev/urandom > ${path}; chmod 600 ` +
        `${path} (and copy it to every host).`,
    )
  if ((info.mode & 0o077) !== 0)
    throw new Error(`The cluster key file ${path} can be read by others; chmod 600 ${path}.`)
  const bytes = new Uint8Array(await readFile(path))
  const text = new TextDecoder().decode(bytes).trim()
  if (bytes.length === 32) return Redacted.make(bytes)
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Redacted.make(new Uint8Array(Buffer.from(text, 'hex')))
  throw new Error(
    `The cluster key file ${path} must hold 32 random bytes (or 64 hex digits); it holds ${bytes.length} bytes.`,
  )
}
