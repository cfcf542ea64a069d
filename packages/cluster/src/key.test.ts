import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redacted } from 'effect'
import { afterAll, describe, expect, it } from 'vitest'
import { loadClusterKey } from './key.ts'

const dir = mkdtempSync(join(tmpdir(), 'errands-cluster-key-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const file = (name: string, data: string | Uint8Array, mode = 0o600) => {
  const path = join(dir, name)
  writeFileSync(path, data)
  chmodSync(path, mode)
  return path
}

describe('the shared cluster key', () => {
  it('reads 32 raw bytes or 64 hex digits', async () => {
    const raw = new Uint8Array(32).map((_, i) => i)
    expect(Redacted.value(await loadClusterKey(file('raw.key', raw)))).toEqual(raw)
    expect(Redacted.value(await loadClusterKey(file('hex.key', `${Buffer.from(raw).toString('hex')}\n`)))).toEqual(raw)
  })

  it('refuses a missing, readable-by-others or wrong-sized file, naming the file and never the key', async () => {
    await expect(loadClusterKey(join(dir, 'absent.key'))).rejects.toThrow(/does not exist; make one with: head -c 32/)
    await expect(loadClusterKey(file('open.key', new Uint8Array(32), 0o644))).rejects.toThrow(
      /can be read by others; chmod 600/,
    )
    await expect(loadClusterKey(file('short.key', 'secret-ish'))).rejects.toThrow(/holds 10 bytes/)
    await expect(loadClusterKey(file('short2.key', 'secret-ish'))).rejects.not.toThrow(/secret-ish/)
  })
})
