/**
 * The person's take-backs across the cluster (L5 in cluster mode): revoking a site or signing
 * out everywhere on any host reaches every errand of every runner. The host that gets the call
 * cleans its own open errands and every sealed record in the shared store — which includes the
 * last snapshots of errands open elsewhere and of a runner that is down (their rows are cleaned
 * while nobody runs them) — then asks each other live runner, through one of its errands'
 * entities, to clean what it has open. A runner that holds no errand has nothing open to clean.
 *
 * @example
 * Layer.effect(Person, clusterPerson) // over the host's own Person
 */
import { Person, type PersonShape } from '@errands/host'
import { LendFailed, type TakeBackReport } from '@errands/lending'
import { Effect } from 'effect'
import { Errand } from './ErrandEntity.ts'
import { Owners } from './owners.ts'

/** Rounds of asking: an errand that moved between the look-up and the call lands elsewhere once. */
const ROUNDS = 3

/**
 * The host's Person with take-backs that reach every runner.
 *
 * @example
 * const person = yield* clusterPerson
 */
export const clusterPerson = Effect.gen(function* () {
  const local = yield* Person
  const owners = yield* Owners
  const client = yield* Errand.client

  const everywhere = (site: string | null, here: TakeBackReport): Effect.Effect<TakeBackReport, LendFailed> =>
    Effect.gen(function* () {
      const reached = new Set<string>()
      const errands = [...here.errands]
      const dropped = [...here.dropped]
      for (let round = 0; round < ROUNDS; round++) {
        const targets = [...(yield* owners.keyPerRunner)].filter(([runner]) => !reached.has(runner))
        if (targets.length === 0) break
        for (const [runner, key] of targets) {
          const answer = yield* Effect.either(client(key).TakeBack({ site }).pipe(Effect.timeout('30 seconds')))
          if (answer._tag === 'Left') {
            if (round === ROUNDS - 1) {
              return yield* new LendFailed({ reason: 'unavailable', message: `took it back here and from every set-aside errand, but the host ${runner} could not be reached; try again in a few seconds` })
            }
            continue
          }
          if (answer.right.failed !== null) {
            return yield* new LendFailed({ reason: 'unavailable', message: `took it back here, but the host ${answer.right.runner} said: ${answer.right.failed}` })
          }
          reached.add(answer.right.runner)
          const report = answer.right.report as TakeBackReport
          errands.push(...report.errands)
          dropped.push(...report.dropped)
        }
      }
      return { sites: here.sites, errands, dropped: [...new Set(dropped)].sort() }
    })

  return Person.of({
    ...local,
    revoke: (site) => Effect.flatMap(local.revoke(site), (here) => everywhere(site, here)),
    signOutEverywhere: Effect.flatMap(local.signOutEverywhere, (here) => everywhere(null, here)),
  })
})
