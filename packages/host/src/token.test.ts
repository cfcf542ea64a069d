import { Effect, Redacted } from 'effect'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadToken, TOKEN_FILE } from './token.ts'

const dirs: string[] = []
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'errands-token-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe("the person's token (B7)", () => {
  it('is made at first start: 32 random bytes as hex, in a 0600 file; later starts read the same one', async () => {
    const dir = fresh()
    const first = Redacted.value(await Effect.runPromise(loadToken(dir)))
    expect(first).toMatch(/^[0-9a-f]{64}$/)
    expect(statSync(join(dir, TOKEN_FILE)).mode & 0o777).toBe(0o600)
    expect(Redacted.value(await Effect.runPromise(loadToken(dir)))).toBe(first)
    expect(Redacted.value(await Effect.runPromise(loadToken(fresh())))).not.toBe(first)
    expect(String(await Effect.runPromise(loadToken(dir)))).not.toContain(first)
  })

  it('refuses a file that holds something else, and leaves it as it was', async () => {
    const dir = fresh()
    writeFileSync(join(dir, TOKEN_FILE), 'my notes\n', { mode: 0o644 })
    const failure = await Effect.runPromise(Effect.flip(loadToken(dir)))
    expect(failure).toMatchObject({ _tag: 'HostStartError', reason: 'data-dir' })
    expect(readFileSync(join(dir, TOKEN_FILE), 'utf8')).toBe('my notes\n')
  })
})
