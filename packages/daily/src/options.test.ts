import { Effect, Either } from 'effect'
import { describe, expect, it } from 'vitest'
import { dailyExtensionId } from './extensionId.ts'
import { decodeOptions, decodeOptionsSync } from './options.ts'

describe('options (STYLE §9)', () => {
  it('defaults to the decision record: 5 min codes, 30 min leases, 45 s poll timeout', () => {
    expect(decodeOptionsSync({})).toMatchObject({
      pairingExpiryMs: 300_000,
      leaseLimitMs: 1_800_000,
      pollTimeoutMs: 45_000,
      pollWaitMs: 20_000,
      extensionIds: [dailyExtensionId],
    })
  })

  it('may tighten the deadlines but never loosen them, and names every bad option', () => {
    expect(decodeOptionsSync({ pollTimeoutMs: 10_000 }).pollTimeoutMs).toBe(10_000)
    const bad = Effect.runSync(
      Effect.either(
        decodeOptions({
          pairingExpiryMs: 600_000,
          leaseLimitMs: 3_600_000,
          pollWaitMs: 30_000,
          extensionIds: ['x'],
        } as never),
      ),
    )
    expect(Either.isLeft(bad)).toBe(true)
    const message = Either.isLeft(bad) ? bad.left.message : ''
    for (const name of ['pairingExpiryMs', 'leaseLimitMs', 'pollWaitMs', 'extensionIds'])
      expect(message).toContain(name)
    expect(Either.isLeft(Effect.runSync(Effect.either(decodeOptions({ unknownOption: 1 } as never))))).toBe(true)
  })
})
