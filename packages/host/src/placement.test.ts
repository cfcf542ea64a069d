import { LendFailed, type TakeBackReport } from '@errands/lending'
import { HealthLog, Sessions } from '@errands/sessions'
import { Effect, Either, Layer } from 'effect'
import { describe, expect, it } from 'vitest'
import { makeHostHealth, type ClusterReport } from './health.ts'
import { makePerson } from './person/make.ts'
import { everywhere, Placement, type PlacementShape } from './placement.ts'

const moved = (conversationId: string) => ({ conversationId, where: 'open' as const, cookies: [], origins: [] })
const here: TakeBackReport = { sites: ['shop.example'], errands: [moved('session:a')], dropped: ['y.example'] }

const sessions = Sessions.layerTest({
  capacity: Effect.succeed({ open: 1, parked: 0, frozen: 0, limit: 4, personDriving: 0, waitingForPerson: 0 }),
  list: Effect.succeed([]),
  health: Effect.succeed([]),
})

const cluster: ClusterReport = {
  runner: '10.0.0.1:7787',
  runners: [{ address: '10.0.0.1:7787', healthy: true, alive: true }],
  shards: { total: 8, here: 8 },
}

describe("placement: a face's calls to an errand's holder (docs/adr/0053-data-only-verbs-cross-the-cluster.md)", () => {
  it('a take-back everywhere is this host’s report with what the other hosts took back added (L5)', async () => {
    const placement: PlacementShape = {
      ...Placement.here,
      takeBack: (site) =>
        Effect.succeed({ errands: [moved(`session:b-${site}`)], dropped: ['x.example', 'y.example'] }),
    }
    const report = await Effect.runPromise(everywhere(placement, 'shop.example', Effect.succeed(here)))
    expect(report).toEqual({
      sites: ['shop.example'],
      errands: [moved('session:a'), moved('session:b-shop.example')],
      dropped: ['x.example', 'y.example'],
    })
  })

  it('a host that cannot be reached fails the take-back in its words; one that fails here asks no other', async () => {
    let asked = 0
    const unreachable: PlacementShape = {
      ...Placement.here,
      takeBack: () =>
        Effect.sync(() => asked++).pipe(
          Effect.zipRight(Effect.fail(new LendFailed({ reason: 'unavailable', message: 'host 10.0.0.2 down' }))),
        ),
    }
    const failed = await Effect.runPromise(Effect.either(everywhere(unreachable, null, Effect.succeed(here))))
    expect(Either.isLeft(failed) && failed.left.message).toBe('host 10.0.0.2 down')
    const first = new LendFailed({ reason: 'unavailable', message: 'the store is read-only' })
    const local = await Effect.runPromise(Effect.either(everywhere(unreachable, null, Effect.fail(first))))
    expect(Either.isLeft(local) && local.left).toBe(first)
    expect(asked).toBe(1)
  })

  it('health has a cluster part only when a cluster’s placement is provided', async () => {
    const report = (layer: Layer.Layer<Sessions | Placement> | Layer.Layer<Sessions>) =>
      Effect.runPromise(
        Effect.flatMap(
          makeHostHealth(() => ({ kind: 'memory', where: 'local' }), new HealthLog(5)),
          (h) => h.report,
        ).pipe(Effect.provide(layer)),
      )
    expect((await report(sessions)).cluster).toBeUndefined()
    expect((await report(Layer.merge(sessions, Placement.layer))).cluster).toBeUndefined()
    const clustered = Layer.merge(
      sessions,
      Layer.succeed(Placement, { ...Placement.here, cluster: Effect.succeed(cluster) }),
    )
    expect(await report(clustered)).toMatchObject({ open: 1, cap: 4, cluster })
  })

  it("a session's card and Allow go where its errand is; a chat's stay with this host's lending (L2)", async () => {
    const sent: Array<[string, string, string]> = []
    const card = { site: 'shop.example' } as never
    const lent = { where: 'open' } as never
    const placement: PlacementShape = {
      ...Placement.here,
      ask: (key, site) => Effect.sync(() => (sent.push(['ask', key, site]), card)),
      allow: (key, site) => Effect.sync(() => (sent.push(['allow', key, site]), lent)),
    }
    const person = await Effect.runPromise(
      makePerson.pipe(Effect.provide(Layer.merge(sessions, Layer.succeed(Placement, placement)))),
    )
    expect(await Effect.runPromise(person.ask('session:task-42', 'shop.example'))).toBe(card)
    expect(await Effect.runPromise(person.allow('session:task-42', 'shop.example'))).toBe(lent)
    expect(sent).toEqual([
      ['ask', 'task-42', 'shop.example'],
      ['allow', 'task-42', 'shop.example'],
    ])
    // No lending in this host: a chat's card is this host's, so it says so and nothing was sent anywhere.
    const chat = await Effect.runPromise(Effect.either(person.allow('chat:c1', 'shop.example')))
    expect(Either.isLeft(chat) && chat.left._tag).toBe('HostUnavailable')
    expect(sent).toHaveLength(2)
  })
})
