/*
 * The child process of crash.test.ts: parks versions start, start+1, … of one errand as fast
 * as it can, printing "w n" before each put and "d n" once it has returned, until it is killed.
 * Usage: node --import tsx test/store/crash-writer.ts <store dir> <start>
 */
import { Clock, Effect } from 'effect'
import { SealedStore } from '../../packages/store/src/index.ts'
import { recordFor } from './crash-record.ts'

const [dir, start] = process.argv.slice(2)
if (dir === undefined || start === undefined) throw new Error('usage: crash-writer.ts <dir> <start>')

const program = Effect.gen(function* () {
  const store = yield* SealedStore
  for (let n = Number(start); ; n++) {
    // Writes to a pipe are synchronous on Linux: once written, the parent will read the line.
    process.stdout.write(`w ${n}\n`)
    yield* store.put(recordFor(n, yield* Clock.currentTimeMillis))
    process.stdout.write(`d ${n}\n`)
  }
})

Effect.runPromise(Effect.scoped(program.pipe(Effect.provide(SealedStore.layer({ dir }))))).catch((error: unknown) => {
  process.stderr.write(`crash-writer failed: ${String(error)}\n`)
  process.exit(1)
})
