import { memoryRuntimeLayer } from '@errands/runtime'
import { SealedStore, type ParkedRecord } from '@errands/store'
import { settingsFrom } from '@errands/supervisor'
import { Effect } from 'effect'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { engineOver } from './Engine.ts'

const dir = mkdtempSync(join(tmpdir(), 'errands-engine-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const parked = (errandId: string, parkedAt: number): ParkedRecord => ({
  errandId,
  conversationId: errandId,
  kind: 'task',
  reason: 'task',
  lentSites: [],
  snapshot: { storage: { cookies: [], origins: [] }, tabs: [], takenAt: parkedAt },
  parkedAt,
})

describe('the sealed store the engine builds keeps the configured retention (S2)', () => {
  it('ERRANDS_STORE_MAX_RECORDS=2: the file store under the data dir keeps the two newest parked errands', async () => {
    const settings = Effect.runSync(
      settingsFrom({ ERRANDS_DATA_DIR: join(dir, 'two'), ERRANDS_STORE_MAX_RECORDS: '2' }),
    )
    const now = Date.now()
    const kept = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* SealedStore
        for (const [i, id] of ['first', 'second', 'third'].entries())
          yield* store.put(parked(id, now - 3_000 + i * 1_000))
        return (yield* store.list()).map((e) => e.errandId)
      }).pipe(Effect.provide(engineOver(memoryRuntimeLayer, { settings })), Effect.scoped),
    )
    expect(kept).toEqual(['second', 'third'])
  })

  it('ERRANDS_STORE_MAX_DAYS=1: a record parked two days ago is dropped, one parked an hour ago stays', async () => {
    const settings = Effect.runSync(settingsFrom({ ERRANDS_DATA_DIR: join(dir, 'day'), ERRANDS_STORE_MAX_DAYS: '1' }))
    const now = Date.now()
    const kept = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* SealedStore
        yield* store.put(parked('old', now - 2 * 24 * 3_600_000))
        yield* store.put(parked('recent', now - 3_600_000))
        return (yield* store.list()).map((e) => e.errandId)
      }).pipe(Effect.provide(engineOver(memoryRuntimeLayer, { settings })), Effect.scoped),
    )
    expect(kept).toEqual(['recent'])
  })
})
