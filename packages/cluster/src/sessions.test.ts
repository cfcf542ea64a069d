import { RuntimeError } from '@errands/runtime'
import { type SessionsShape, UnknownConversation } from '@errands/sessions'
import { Effect, Either, Redacted } from 'effect'
import { describe, expect, it } from 'vitest'
import type { ErrandClient } from './forward.ts'
import { overlaySessions } from './sessions.ts'

const proxy = Redacted.make('http://user:s3cret@proxy.example:3128')

/** A local boundary that records its calls, and a client that records what it would send to the owner. */
const setup = (answer: () => Effect.Effect<void, { readonly _tag: string }> = () => Effect.void) => {
  const local: Array<[string, unknown]> = []
  const sent: Array<{ key: string; verb: string; payload: unknown }> = []
  const base = {
    setUpstreamProxy: (id: string, p: unknown) => Effect.sync(() => void local.push(['setUpstreamProxy', [id, p]])),
    view: (id: string) => Effect.sync(() => (local.push(['view', id]), { id }) as never),
  } as unknown as SessionsShape
  const client = ((key: string) =>
    new Proxy(
      {},
      {
        get: (_, verb: string) => (payload: unknown) => {
          sent.push({ key, verb, payload })
          return answer()
        },
      },
    )) as unknown as ErrandClient
  return { local, sent, sessions: overlaySessions(base, client) }
}

describe("the cluster's Sessions overlay (docs/adr/0053-data-only-verbs-cross-the-cluster.md)", () => {
  it("sends a session's upstream proxy to its key's owner, still a secret; the other verbs stay here", async () => {
    const { local, sent, sessions } = setup()
    await Effect.runPromise(sessions.setUpstreamProxy('session:task-42', proxy))
    await Effect.runPromise(sessions.setUpstreamProxy('session:task-43', undefined))
    await Effect.runPromise(sessions.view('session:task-42'))
    expect(sent).toEqual([
      { key: 'task-42', verb: 'setUpstreamProxy', payload: { proxy } },
      { key: 'task-43', verb: 'setUpstreamProxy', payload: {} },
    ])
    expect(JSON.stringify(sent)).not.toContain('s3cret')
    expect(local).toEqual([['view', 'session:task-42']])
  })

  it("keeps a chat's conversation on this host: no cluster entity is a chat", async () => {
    const { local, sent, sessions } = setup()
    await Effect.runPromise(sessions.setUpstreamProxy('chat:c1', proxy))
    expect(sent).toEqual([])
    expect(local).toEqual([['setUpstreamProxy', ['chat:c1', proxy]]])
  })

  it("gives back the owner's typed errors as they are, the cluster's failures as an unavailable runtime", async () => {
    const unknown = setup(() =>
      Effect.fail(
        new UnknownConversation({
          reason: 'unknown-conversation',
          conversationId: 'session:task-42',
          message: 'no such errand',
        }),
      ),
    )
    const refused = await Effect.runPromise(Effect.either(unknown.sessions.setUpstreamProxy('session:task-42', proxy)))
    expect(Either.isLeft(refused) && refused.left).toBeInstanceOf(UnknownConversation)
    const moving = setup(() => Effect.fail({ _tag: 'MailboxFull' }))
    const failed = await Effect.runPromise(Effect.either(moving.sessions.setUpstreamProxy('session:task-42', proxy)))
    expect(Either.isLeft(failed) && failed.left).toBeInstanceOf(RuntimeError)
    expect(Either.isLeft(failed) && failed.left.message).toMatch(/could not be reached \(MailboxFull\)/)
  })
})
