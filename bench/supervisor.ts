/**
 * The supervisor alone on the deterministic runtime: events per second with 10,000
 * conversations, and the heap each parked errand costs.
 *
 * @example
 * rows.push(...(await benchSupervisor()))
 */
import { services, testSupervisor } from '@errands/supervisor'
import { Effect, TestContext } from 'effect'
import type { Row } from './table.ts'

const N = 10_000

export const benchSupervisor = async (): Promise<Row[]> => {
  const rows: Row[] = []
  await Effect.runPromise(
    Effect.gen(function* () {
      const { supervisor } = yield* services
      const ids = Array.from({ length: N }, (_, i) => `c${i}`)
      // Open all, park all: 10,000 parked errands (the cap keeps at most 6 open at a time).
      for (const id of ids) {
        yield* supervisor.open({ id, kind: 'task' })
        yield* supervisor.taskChanged(id, 'interrupted')
      }
      global.gc?.()
      const heapParked = process.memoryUsage().heapUsed
      // Events: drive/undrive pairs and page loads across the open ones, status changes across all.
      const start = performance.now()
      let events = 0
      for (let round = 0; round < 5; round++) {
        for (const id of ids) {
          yield* supervisor.pageLoaded(id)
          yield* supervisor.undrive(id)
          events += 2
        }
      }
      const seconds = (performance.now() - start) / 1000
      rows.push({
        section: `supervisor alone, ${N.toLocaleString('en')} conversations (memory runtime)`,
        name: 'events per second (page.loaded + undrive)',
        median: events / seconds,
        ratio: NaN,
        unit: 'ev/s',
      })
      // Heap per parked errand: measure against a supervisor with the same conversations closed.
      for (const id of ids) yield* supervisor.release(id)
      global.gc?.()
      const heapEmpty = process.memoryUsage().heapUsed
      rows.push({
        section: `supervisor alone, ${N.toLocaleString('en')} conversations (memory runtime)`,
        name: 'heap per parked errand (actor + sealed record)',
        median: Math.max(0, heapParked - heapEmpty) / N / 1024,
        ratio: NaN,
        unit: 'KB',
      })
    }).pipe(
      Effect.scoped,
      Effect.provide(testSupervisor({ maxErrands: 6 }, { sweep: false })),
      Effect.provide(TestContext.TestContext),
    ),
  )
  return rows
}
