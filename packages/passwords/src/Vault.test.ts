import { randomBytes } from 'node:crypto'
import { deviceKey } from '@errands/store'
import { Effect, Either, Redacted } from 'effect'
import { describe, expect, it } from 'vitest'
import { fillPlan } from './fill.ts'
import { memoryStorage } from './storage.ts'
import { makeVault } from './Vault.ts'

const PASSWORD = 'pw-Secret-91f2'
const TOTP = 'JBSWY3DPEHPK3PXP'
const run = <A, E>(e: Effect.Effect<A, E>) => Effect.runPromise(e)
const fresh = async () => {
  const storage = memoryStorage()
  const vault = await run(makeVault(storage, deviceKey(randomBytes(32))))
  return { storage, vault }
}

describe('the vault (W1)', () => {
  it('is sealed: neither the password nor the TOTP secret is in its bytes', async () => {
    const { storage, vault } = await fresh()
    await run(vault.add({ site: 'shop.example', username: 'ann', password: PASSWORD, totp: TOTP }))
    const bytes = Buffer.from(storage.bytes()!)
    expect(bytes.includes(PASSWORD)).toBe(false)
    expect(bytes.includes(TOTP)).toBe(false)
    expect(bytes.includes('ann')).toBe(false)
  })

  it('answers the person and the agent without a password or a TOTP secret', async () => {
    const { vault } = await fresh()
    const added = await run(
      vault.add({ site: 'https://login.shop.example', username: 'ann', password: PASSWORD, totp: TOTP }),
    )
    const answers = JSON.stringify([added, await run(vault.list), await run(vault.signIns)])
    expect(answers).not.toContain(PASSWORD)
    expect(answers).not.toContain(TOTP)
    expect(await run(vault.signIns)).toEqual([{ site: 'https://login.shop.example', username: 'ann', totp: true }])
  })

  it('edits, removes and imports; a bad entry is a typed refusal that changes nothing', async () => {
    const { vault } = await fresh()
    const a = await run(vault.add({ site: 'shop.example', username: 'ann', password: PASSWORD }))
    const changed = await run(vault.update(a.id, { username: 'anna', totp: TOTP }))
    expect(changed).toMatchObject({ site: 'shop.example', username: 'anna', totp: true })
    const refused = await run(Effect.either(vault.update(a.id, { site: 'not a site/x' })))
    expect(Either.isLeft(refused) && refused.left._tag).toBe('InvalidPasswordEntry')
    expect((await run(vault.list))[0]!.username).toBe('anna')
    const report = await run(
      vault.importCsv(
        'name,url,username,password\nx,https://www.shop.example/,anna,new\ny,https://b.example/,bo,pw\nz,,q,r\n',
      ),
    )
    expect(report).toEqual({ added: 1, updated: 1, skipped: 1, refused: [{ row: 3, reason: 'no-url' }] })
    await run(vault.remove(a.id))
    expect((await run(vault.list)).map((e) => e.site)).toEqual(['b.example'])
    const gone = await run(Effect.either(vault.remove(a.id)))
    expect(Either.isLeft(gone) && gone.left.status).toBe(404)
  })

  it('fills only on the entry site: a look-alike is WrongSite, several need a user name (W2)', async () => {
    const { vault } = await fresh()
    await run(vault.add({ site: 'shop.example', username: 'ann', password: PASSWORD }))
    const entry = await run(vault.forFill('https://shop.example/login', {}))
    expect(String(entry.password)).not.toContain(PASSWORD)
    expect(Redacted.value(entry.password)).toBe(PASSWORD)
    const wrong = await run(
      Effect.either(vault.forFill('https://shop.example.evil.test/login?x=1', { site: 'shop.example' })),
    )
    expect(Either.isLeft(wrong) && wrong.left).toMatchObject({ _tag: 'WrongSite', status: 403 })
    expect(Either.isLeft(wrong) && wrong.left.message).not.toContain('login?x')
    const none = await run(Effect.either(vault.forFill('https://shop.example.evil.test/', {})))
    expect(Either.isLeft(none) && none.left._tag).toBe('NoSuchPassword')
    await run(vault.add({ site: 'shop.example', username: 'bo', password: 'other' }))
    const several = await run(Effect.either(vault.forFill('https://shop.example/', {})))
    expect(Either.isLeft(several) && several.left.status).toBe(409)
    expect((await run(vault.forFill('https://shop.example/', { username: 'bo' }))).username).toBe('bo')
  })

  it('a sealed vault under another key is unreadable, and is not overwritten', async () => {
    const { storage, vault } = await fresh()
    await run(vault.add({ site: 'shop.example', username: 'ann', password: PASSWORD }))
    const before = storage.bytes()
    const other = await run(makeVault(storage, deviceKey(randomBytes(32))))
    const failed = await run(Effect.either(other.add({ site: 'b.example', username: 'x', password: 'y' })))
    expect(Either.isLeft(failed) && failed.left).toMatchObject({ _tag: 'VaultUnavailable', reason: 'unreadable' })
    expect(storage.bytes()).toBe(before)
  })

  it("plans a fill: the user name as it is, the password and TOTP as secrets for the entry's site", async () => {
    const { vault } = await fresh()
    await run(vault.add({ site: 'shop.example', username: 'ann', password: PASSWORD, totp: TOTP }))
    const entry = await run(vault.forFill('https://shop.example/', {}))
    const plan = Either.getOrThrow(fillPlan(entry, { username: '#u', password: '#p', totp: '#t' }, 5_000, () => 0))
    expect(plan.fields.map((f) => f.value._tag)).toEqual(['plain', 'secret', 'secret'])
    const [, pw, code] = plan.fields
    expect(pw!.value._tag === 'secret' && pw!.value.secret.reveal()).toBe(PASSWORD)
    expect(code!.value._tag === 'secret' && code!.value.secret.reveal()).toMatch(/^\d{6}$/)
    expect(plan.destination.allows('https://a.shop.example/x')).toBe(true)
    expect(plan.destination.allows('https://evil.test/')).toBe(false)
    expect(JSON.stringify(plan)).not.toContain(PASSWORD)
  })
})
