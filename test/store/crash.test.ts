import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context, Effect, Layer, Option } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SealedStore } from '../../packages/store/src/index.ts'
import { CRASH_ERRAND, versionOf } from './crash-record.ts'
import { bundleWriter, prng, startWriter, waitUntil, type Run } from './crash-run.ts'

/*
 * S4, with real processes: a child parks one errand over and over and is killed with SIGKILL
 * at a random moment; a fresh store must then read the old or the new version, never an error,
 * never nothing once something was written. The child runs as a bundle (crash-run.ts says why).
 */

const here = dirname(fileURLToPath(import.meta.url))
let work = ''
let writer = ''

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'errands-crash-'))
  writer = await bundleWriter(join(here, 'crash-writer.ts'), work)
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

const startFileWriter = (dir: string, from: number): Run => startWriter(writer, [dir, String(from)])

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Opens a fresh store on `dir` (as a restarted engine would) and reads what it holds. */
const inspect = (dir: string) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function* () {
    const store = yield* Layer.build(SealedStore.layer({ dir })).pipe(Effect.map(Context.get(SealedStore)))
    const record = yield* Effect.either(store.get(CRASH_ERRAND))
    return {
      record,
      listed: yield* store.list(),
      problems: yield* store.problems(),
      temps: [dir, join(dir, 'errands')].flatMap((d) => readdirSync(d).filter((n) => n.endsWith('.tmp'))),
    }
  })))

describe('sealed store under SIGKILL', () => {
  it('50 kills at random moments: a fresh store reads the old or the new version, never an error', async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000)
    const random = prng(seed)
    const dir = join(work, 'store')
    let stored: number | undefined
    let killedMidPut = 0
    for (let i = 0; i < 50; i++) {
      const at = `seed ${seed}, kill ${i}`
      const run = startFileWriter(dir, stored === undefined ? 0 : stored + 1)
      // Every fifth kill lands anywhere, start-up included; the others once writing is under way.
      if (stored === undefined || i % 5 !== 4) {
        await waitUntil(() => run.done.length > 0 || run.child.exitCode !== null, 15_000, `the first put (${at})`)
        expect(run.child.exitCode, `${at}: ${run.stderr.join('')}`).toBeNull()
        await sleep(random() * 40)
      } else {
        await sleep(random() * 400)
      }
      run.child.kill('SIGKILL')
      await run.closed
      expect(run.stderr.join(''), at).toBe('')

      const lastDone = run.done.at(-1)
      const lastStarted = run.started.at(-1)
      if (lastStarted !== undefined && lastStarted !== lastDone) killedMidPut++
      // Old or new: the last finished put (or, with none, what was there before) or the one in flight.
      const allowed = [lastDone ?? stored, lastStarted].filter((n): n is number => n !== undefined)

      const seen = await inspect(dir)
      if (seen.record._tag === 'Left') expect.fail(`${at}: ${seen.record.left.message}`)
      const record = seen.record.right
      expect(Option.isSome(record), `${at}: the record is missing`).toBe(true)
      if (Option.isNone(record)) return
      const version = versionOf(record.value)
      expect(version, `${at}: a torn or mixed record`).toBeDefined()
      expect(allowed, `${at}: read ${version}`).toContain(version)
      expect(seen.listed.map((e) => e.errandId), at).toEqual([CRASH_ERRAND])
      expect(seen.problems, at).toEqual([])
      expect(seen.temps, `${at}: temp files survive a reopen`).toEqual([])
      stored = version
    }
    // The random delays must actually have hit the write window, or this test proves nothing.
    expect(killedMidPut, `seed ${seed}`).toBeGreaterThan(0)
  }, 90_000)

  it('a kill while a new store is being created leaves a store that opens (key whole or absent)', async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000)
    const random = prng(seed + 1)
    for (let i = 0; i < 10; i++) {
      const dir = join(work, `fresh-${i}`)
      const run = startFileWriter(dir, 0)
      await sleep(150 + random() * 250)
      run.child.kill('SIGKILL')
      await run.closed
      const keyPath = join(dir, 'device.key')
      // Before anyone reopens it: the key file is absent or whole, never a torn write.
      if (existsSync(keyPath)) expect(readFileSync(keyPath).length, `seed ${seed}, fresh ${i}`).toBe(32)
      const seen = await inspect(dir)
      if (seen.record._tag === 'Left') expect.fail(`seed ${seed}, fresh ${i}: ${seen.record.left.message}`)
      if (run.done.length > 0) expect(Option.isSome(seen.record.right), `seed ${seed}, fresh ${i}`).toBe(true)
      expect(seen.problems).toEqual([])
      expect(seen.temps).toEqual([])
    }
  }, 60_000)
})
