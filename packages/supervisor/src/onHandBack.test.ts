import { it } from '@effect/vitest'
import { Effect } from 'effect'
import { describe, expect } from 'vitest'
import { Supervisor } from './Supervisor.ts'
import { makeSessions } from './SessionsService.ts'
import { testSupervisor } from './testing.ts'

describe('Sessions.onHandBack (issue #26: a paused DevTools client hears the note)', () => {
  it.scoped(
    'every Sessions over one supervisor hears each hand-back and its note, before the view changes; unsubscribing ' +
      'stops it',
    () =>
      Effect.gen(function* () {
        const supervisor = yield* Supervisor
        // The host's Sessions and an embedder's DevTools server's: two over one supervisor.
        const host = makeSessions(supervisor)
        const embedder = makeSessions(supervisor)
        const heard: Array<string> = []
        const stop = embedder.onHandBack((id, note) => heard.push(`${id} note=${note}`))
        const stopViews = host.onChange((view) => {
          if (view.conversationId === 'session:a') heard.push(`view personDriving=${view.personDriving === true}`)
        })
        yield* host.resolve({ id: 'session:a', kind: 'task' })
        yield* host.undrive('session:a')
        yield* host.takeWheel('session:a')
        heard.length = 0
        yield* host.handBack('session:a', 'all yours')
        expect(heard[0]).toBe('session:a note=all yours')
        expect(heard).toContain('view personDriving=false')
        yield* host.takeWheel('session:a')
        yield* host.handBack('session:a')
        expect(heard).toContain('session:a note=null')
        // A hand-back that fails (nobody knows the conversation) tells nobody.
        heard.length = 0
        expect((yield* Effect.flip(host.handBack('session:nobody', 'lost')))._tag).toBe('UnknownConversation')
        expect(heard).toEqual([])
        stop()
        stopViews()
        heard.length = 0
        yield* host.takeWheel('session:a')
        yield* host.handBack('session:a', 'unheard')
        expect(heard).toEqual([])
      }).pipe(Effect.provide(testSupervisor())),
  )
})
