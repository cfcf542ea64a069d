import { getShortestPaths, getStateNodes } from '@xstate/graph'
import { describe, expect, it } from 'vitest'
import { createActor, initialTransition, SimulatedClock, transition, type SnapshotFrom } from 'xstate'
import { endStateOf, leaseMachine } from './machine.ts'
import type { LeaseEmitted, LeaseEndCause, LeaseEvent, LeaseInput } from './types.ts'

type Snap = SnapshotFrom<typeof leaseMachine>
type AnyEvent = LeaseEvent | { type: string; [k: string]: unknown }

const input: LeaseInput = { leaseId: 'l1', botId: 'bot-1', now: 0 }
const start = (extra: Partial<LeaseInput> = {}) => initialTransition(leaseMachine, { ...input, ...extra })[0]

/** Steps through events and collects what the machine emitted on the way. */
const run = (s: Snap, ...events: AnyEvent[]) => {
  const out: LeaseEmitted[] = []
  let snap = s
  for (const e of events) {
    const [next, actions] = transition(leaseMachine, snap, e as LeaseEvent)
    for (const a of actions as ReadonlyArray<{ type: string; params?: unknown }>) {
      if (a.type === 'xstate.emit') out.push((a.params as { event: LeaseEmitted }).event)
    }
    snap = next
  }
  return { snap, emitted: out }
}
const step = (s: Snap, ...events: AnyEvent[]) => run(s, ...events).snap

const after = {
  pairingExpiry: { type: 'xstate.after.pairingExpiry.lease.pairing' },
  leaseLimit: { type: 'xstate.after.leaseLimit.lease.leased' },
  pollTimeout: { type: 'xstate.after.pollTimeout.lease.leased.liveness.watching' },
}
const paired = () => step(start(), { type: 'pairing.redeemed', at: 10 })
const shared = () => step(paired(), { type: 'lease.shared', fence: 'F', at: 20 })
const withPending = (...ids: string[]) =>
  step(shared(), ...ids.map((id, i) => ({ type: 'observation.requested', id, at: 30 + i })))
const rejections = (emitted: LeaseEmitted[]) => emitted.filter((e) => e.type === 'observation.rejected')
const ended = (emitted: LeaseEmitted[]) => emitted.filter((e) => e.type === 'lease.ended')

describe('lease machine — pure stepping', () => {
  it('pairs, waits for the Share, then is shared (D1, D3)', () => {
    const s0 = start()
    expect(s0.value).toBe('pairing')
    expect(s0.hasTag('redeemable')).toBe(true)
    const s1 = step(s0, { type: 'pairing.redeemed', at: 10 })
    expect(s1.value).toEqual({ leased: { share: 'awaiting', liveness: 'watching' } })
    expect(s1.context).toMatchObject({ pairedAt: 10, lastPollAt: 10, fence: null })
    expect(s1.hasTag('redeemable')).toBe(false)
    const s2 = step(s1, { type: 'lease.shared', fence: 'F', at: 20 })
    expect(s2.hasTag('shared')).toBe(true)
    expect(s2.context).toMatchObject({ fence: 'F', sharedAt: 20 })
  })

  it('a second Share changes nothing: one lease, one document (D6)', () => {
    const s = step(shared(), { type: 'lease.shared', fence: 'G', at: 21 })
    expect(s.context.fence).toBe('F')
  })

  it('resolves an answer fenced by the shared document (D4)', () => {
    const { snap, emitted } = run(withPending('o1', 'o2'), {
      type: 'observation.answered',
      id: 'o1',
      fence: 'F',
      at: 40,
    })
    expect(emitted).toEqual([{ type: 'observation.resolved', leaseId: 'l1', id: 'o1' }])
    expect(snap.context.pending.map((p) => p.id)).toEqual(['o2'])
    expect(snap.hasTag('shared')).toBe(true)
  })

  it('rejects an answer from another document and revokes the lease (D4)', () => {
    const { snap, emitted } = run(withPending('o1', 'o2'), {
      type: 'observation.answered',
      id: 'o1',
      fence: 'OTHER',
      at: 40,
    })
    expect(snap.value).toBe('revoked')
    expect(snap.context.endCause).toBe('navigation')
    expect(rejections(emitted)).toEqual([
      { type: 'observation.rejected', leaseId: 'l1', id: 'o1', reason: 'fence-mismatch', cause: null },
      { type: 'observation.rejected', leaseId: 'l1', id: 'o2', reason: 'lease-ended', cause: 'navigation' },
    ])
  })

  it('ignores a late or repeated answer', () => {
    const s = step(withPending('o1'), { type: 'observation.answered', id: 'o1', fence: 'F', at: 40 })
    const { snap, emitted } = run(s, { type: 'observation.answered', id: 'o1', fence: 'WRONG', at: 41 })
    expect(emitted).toEqual([])
    expect(snap.hasTag('shared')).toBe(true)
  })

  it('rejects an observation at once when nothing is shared yet', () => {
    for (const s of [start(), paired()]) {
      const { snap, emitted } = run(s, { type: 'observation.requested', id: 'o1', at: 11 })
      expect(emitted).toEqual([
        { type: 'observation.rejected', leaseId: 'l1', id: 'o1', reason: 'not-shared', cause: null },
      ])
      expect(snap.context.pending).toEqual([])
    }
  })

  it('bounds pending observations and ignores a repeated request id', () => {
    const s = withPending('a', 'b', 'c', 'd')
    const { snap, emitted } = run(
      s,
      { type: 'observation.requested', id: 'e', at: 50 },
      { type: 'observation.requested', id: 'a', at: 51 },
    )
    expect(emitted).toEqual([{ type: 'observation.rejected', leaseId: 'l1', id: 'e', reason: 'too-many', cause: null }])
    expect(snap.context.pending.map((p) => p.id)).toEqual(['a', 'b', 'c', 'd'])
  })

  it('settles failed and abandoned observations without ending the lease', () => {
    const { snap, emitted } = run(
      withPending('a', 'b'),
      { type: 'observation.failed', id: 'a', at: 40 },
      { type: 'observation.abandoned', id: 'b', at: 41 },
    )
    expect(emitted.map((e) => e.type === 'observation.rejected' && [e.id, e.reason])).toEqual([
      ['a', 'extension-error'],
      ['b', 'abandoned'],
    ])
    expect(snap.hasTag('shared')).toBe(true)
  })

  const causes: Array<[string, AnyEvent, LeaseEndCause, 'returned' | 'revoked' | 'expired']> = [
    ['return', { type: 'lease.return', at: 60 }, 'return', 'returned'],
    ['reload/navigation', { type: 'tab.navigated', at: 60 }, 'navigation', 'revoked'],
    ['tab close', { type: 'tab.closed', at: 60 }, 'tab-closed', 'revoked'],
    ['access removal', { type: 'access.removed', at: 60 }, 'access-removed', 'revoked'],
    ['target change', { type: 'target.changed', at: 60 }, 'target-changed', 'revoked'],
    ['host disposal', { type: 'host.disposed', at: 60 }, 'host-disposed', 'revoked'],
    ['a newer pairing', { type: 'lease.replaced', at: 60 }, 'replaced', 'revoked'],
    ['no poll for 45 s', after.pollTimeout, 'poll-timeout', 'revoked'],
    ['the 30-minute limit', after.leaseLimit, 'lease-limit', 'expired'],
  ]

  it.each(causes)('%s rejects every pending observation and invalidates approval (D5)', (_, event, cause, final) => {
    const s = step(withPending('o1', 'o2'), { type: 'approval.granted', at: 35 })
    expect(s.context.approved).toBe(true)
    const { snap, emitted } = run(s, event)
    expect(snap.value).toBe(final)
    expect(snap.status).toBe('done')
    expect(endStateOf(cause)).toBe(final)
    expect(snap.context).toMatchObject({ endCause: cause, pending: [], approved: false })
    expect(
      rejections(emitted).map((e) => [
        e.type === 'observation.rejected' && e.id,
        e.type === 'observation.rejected' && e.cause,
      ]),
    ).toEqual([
      ['o1', cause],
      ['o2', cause],
    ])
    expect(ended(emitted)).toEqual([
      {
        type: 'lease.ended',
        leaseId: 'l1',
        botId: 'bot-1',
        state: final,
        cause,
        at: snap.context.endedAt,
        rejected: ['o1', 'o2'],
        approvalInvalidated: true,
      },
    ])
  })

  it('dates deadline ends at the moment they fell due (replayable, T1)', () => {
    expect(step(start(), after.pairingExpiry).context.endedAt).toBe(300_000)
    expect(step(paired(), after.leaseLimit).context.endedAt).toBe(10 + 1_800_000)
    expect(step(shared(), { type: 'extension.polled', at: 100 }, after.pollTimeout).context.endedAt).toBe(100 + 45_000)
  })

  it('an unredeemed code expires; a used code is no longer redeemable (D1)', () => {
    const { snap, emitted } = run(start(), after.pairingExpiry)
    expect(snap.value).toBe('expired')
    expect(snap.context.endCause).toBe('pairing-expired')
    expect(ended(emitted)[0]).toMatchObject({ state: 'expired', rejected: [], approvalInvalidated: false })
    expect(paired().hasTag('redeemable')).toBe(false)
  })

  it('ends with the cause that came first; later causes change nothing', () => {
    const s = step(withPending('o1'), { type: 'tab.closed', at: 60 })
    const { snap, emitted } = run(
      s,
      { type: 'host.disposed', at: 61 },
      { type: 'lease.return', at: 62 },
      { type: 'observation.answered', id: 'o1', fence: 'F', at: 63 },
    )
    expect(emitted).toEqual([])
    expect(snap.context.endCause).toBe('tab-closed')
  })

  it('approval is granted only for a shared document', () => {
    expect(step(paired(), { type: 'approval.granted', at: 11 }).context.approved).toBe(false)
    expect(step(shared(), { type: 'approval.granted', at: 21 }).context.approved).toBe(true)
  })

  it('tab events before a Share mean nothing (no tab is lent yet)', () => {
    const s = step(paired(), { type: 'tab.navigated', at: 11 }, { type: 'tab.closed', at: 12 })
    expect(s.matches({ leased: { share: 'awaiting' } })).toBe(true)
  })
})

describe('lease machine — simulated clock', () => {
  const startActor = (clock: SimulatedClock, extra: Partial<LeaseInput> = {}) => {
    const emitted: LeaseEmitted[] = []
    const actor = createActor(leaseMachine, { clock, input: { ...input, ...extra } })
    actor.on('*', (e) => emitted.push(e))
    actor.start()
    return { actor, emitted }
  }

  it('a pairing code is valid for exactly five minutes (pairingExpiry)', () => {
    const clock = new SimulatedClock()
    const { actor } = startActor(clock)
    clock.increment(299_999)
    expect(actor.getSnapshot().value).toBe('pairing')
    clock.increment(1)
    expect(actor.getSnapshot().value).toBe('expired')
  })

  it('redeeming in time stops the pairing deadline', () => {
    const clock = new SimulatedClock()
    const { actor } = startActor(clock)
    clock.increment(299_000)
    actor.send({ type: 'pairing.redeemed', at: 299_000 })
    clock.increment(10_000)
    actor.send({ type: 'extension.polled', at: 309_000 })
    expect(actor.getSnapshot().hasTag('leased')).toBe(true)
  })

  it('45 s without a poll revokes; each poll restarts the wait (pollTimeout)', () => {
    const clock = new SimulatedClock()
    const { actor, emitted } = startActor(clock)
    actor.send({ type: 'pairing.redeemed', at: 0 })
    actor.send({ type: 'lease.shared', fence: 'F', at: 0 })
    for (let t = 40_000; t <= 400_000; t += 40_000) {
      clock.increment(40_000)
      actor.send({ type: 'extension.polled', at: t })
    }
    expect(actor.getSnapshot().hasTag('shared')).toBe(true)
    actor.send({ type: 'observation.requested', id: 'o1', at: 400_000 })
    clock.increment(44_999)
    expect(actor.getSnapshot().hasTag('shared')).toBe(true)
    clock.increment(1)
    expect(actor.getSnapshot().value).toBe('revoked')
    expect(actor.getSnapshot().context).toMatchObject({ endCause: 'poll-timeout', endedAt: 445_000 })
    expect(emitted.filter((e) => e.type === 'observation.rejected')).toEqual([
      { type: 'observation.rejected', leaseId: 'l1', id: 'o1', reason: 'lease-ended', cause: 'poll-timeout' },
    ])
  })

  it('a lease lasts at most 30 minutes even while polled (leaseLimit)', () => {
    const clock = new SimulatedClock()
    const { actor, emitted } = startActor(clock)
    clock.increment(1_000)
    actor.send({ type: 'pairing.redeemed', at: 1_000 })
    actor.send({ type: 'lease.shared', fence: 'F', at: 1_000 })
    actor.send({ type: 'approval.granted', at: 1_000 })
    let t = 1_000
    while (t + 30_000 < 1_000 + 1_800_000) {
      clock.increment(30_000)
      t += 30_000
      actor.send({ type: 'extension.polled', at: t })
    }
    clock.increment(1_000 + 1_800_000 - t - 1)
    expect(actor.getSnapshot().hasTag('shared')).toBe(true)
    clock.increment(1)
    expect(actor.getSnapshot().value).toBe('expired')
    expect(emitted.at(-1)).toMatchObject({
      type: 'lease.ended',
      cause: 'lease-limit',
      approvalInvalidated: true,
      at: 1_801_000,
    })
  })

  it('deadlines are configurable (tightened by the service)', () => {
    const clock = new SimulatedClock()
    const { actor } = startActor(clock, { pollTimeoutMs: 5_000 })
    actor.send({ type: 'pairing.redeemed', at: 0 })
    clock.increment(5_000)
    expect(actor.getSnapshot().context.endCause).toBe('poll-timeout')
  })
})

describe('lease machine — model-based paths', () => {
  const events = (s: Snap): AnyEvent[] => [
    { type: 'pairing.redeemed', at: 1 },
    { type: 'lease.shared', fence: 'F', at: 1 },
    { type: 'extension.polled', at: 1 },
    ...(s.context.pending.length < 2 ? ['a', 'b'].map((id) => ({ type: 'observation.requested', id, at: 1 })) : []),
    ...['a', 'b'].flatMap((id) => [
      { type: 'observation.answered', id, fence: 'F', at: 1 },
      { type: 'observation.answered', id, fence: 'X', at: 1 },
      { type: 'observation.failed', id, at: 1 },
      { type: 'observation.abandoned', id, at: 1 },
    ]),
    { type: 'approval.granted', at: 1 },
    ...(
      [
        'lease.return',
        'tab.navigated',
        'tab.closed',
        'access.removed',
        'target.changed',
        'host.disposed',
        'lease.replaced',
      ] as const
    ).map((type) => ({ type, at: 1 })),
    after.pairingExpiry,
    after.leaseLimit,
    after.pollTimeout,
  ]
  const serializeState = (s: Snap) =>
    JSON.stringify([
      s.value,
      s.context.pending.map((p) => p.id),
      s.context.approved,
      s.context.fence,
      s.context.endCause,
    ])
  const paths = getShortestPaths(leaseMachine, {
    input,
    events: events as never,
    serializeState: serializeState as never,
  })
  const reached = paths.map((p) => p.state as Snap)

  it('reaches every state node and every end cause', () => {
    const seen = new Set<string>()
    for (const s of reached) for (const node of s._nodes) seen.add(node.id)
    expect(
      getStateNodes(leaseMachine)
        .map((n) => n.id)
        .filter((id) => !seen.has(id)),
    ).toEqual([])
    const causes = new Set(reached.map((s) => s.context.endCause).filter((c) => c !== null))
    expect([...causes].sort()).toEqual([
      'access-removed',
      'host-disposed',
      'lease-limit',
      'navigation',
      'pairing-expired',
      'poll-timeout',
      'replaced',
      'return',
      'tab-closed',
      'target-changed',
    ])
  })

  it('settles every pending observation exactly once, and an end leaves nothing approved', () => {
    let checked = 0
    for (const s of reached) {
      for (const event of events(s)) {
        const { snap, emitted } = run(s, event)
        checked++
        const settled = emitted.flatMap((e) => (e.type === 'lease.ended' ? [] : [e.id]))
        const before = new Set(s.context.pending.map((p) => p.id))
        const requested = event.type === 'observation.requested' ? [event.id as string] : []
        // Every id that left `pending` was settled, and nothing is settled twice.
        const gone = [...before].filter((id) => !snap.context.pending.some((p) => p.id === id))
        for (const id of gone) expect(settled.filter((x) => x === id)).toHaveLength(1)
        expect(new Set(settled).size).toBe(settled.length)
        // A new request is pending, or it was rejected, never silently dropped (unless a duplicate).
        for (const id of requested)
          if (s.status !== 'done' && !before.has(id))
            expect(snap.context.pending.some((p) => p.id === id) || settled.includes(id)).toBe(true)
        if (snap.status === 'done') {
          expect(snap.context.pending).toEqual([])
          expect(snap.context.approved).toBe(false)
          expect(endStateOf(snap.context.endCause!)).toBe(snap.value)
        }
        if (s.status === 'done') expect(emitted).toEqual([])
        if (snap.context.approved) expect(snap.hasTag('shared')).toBe(true)
        if (snap.context.pending.length > 0) expect(snap.hasTag('shared')).toBe(true)
      }
    }
    expect(checked).toBeGreaterThan(500)
  })
})
