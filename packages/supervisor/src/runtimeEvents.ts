/**
 * What the runtime reports, turned into machine events: a page loaded, a context crashed (its
 * last words kept as the snapshot a heal reopens, H2), the browser crashed.
 */
import type { RuntimeEvent } from '@errands/runtime'
import { Effect, Option, Runtime as EffectRuntime } from 'effect'
import { withHeldOwnData } from './amendments.ts'
import type { SupervisorCore } from './core.ts'
import { words } from './health.ts'
import type { Actors } from './actors.ts'
import type { Entry } from './views.ts'

/**
 * The listener one supervisor subscribes to its runtime's events.
 *
 * @example
 * const unsubscribe = yield* runtime.subscribe(makeRuntimeEvents(core, actors))
 */
export const makeRuntimeEvents = (core: SupervisorCore, actors: Actors) => {
  const { runtime, effectRuntime, health, entries, byContext, snapshots, now, journal } = core
  const { send } = actors

  const onRuntimeEvent = (event: RuntimeEvent) => {
    const t = now()
    switch (event._tag) {
      case 'PageLoaded': {
        const entry = byContext.get(event.contextId)
        if (entry === undefined) return
        journal({ t, op: 'page.loaded', conversationId: entry.conversation.id })
        send(entry, { type: 'page.loaded', at: t })
        return
      }
      case 'ContextCrashed': {
        const entry = byContext.get(event.contextId)
        if (entry === undefined) return
        journal({ t, op: 'context.crashed', conversationId: entry.conversation.id })
        health.add({ at: t, level: 'warning', text: words.crashed, conversationId: entry.conversation.id })
        // What the context held when it crashed (its storage outlives a renderer): read from
        // now, so every take-back from here on amends it (L5), and kept as the snapshot its
        // heal reopens — unless the errand ended meanwhile.
        const errandId = entry.conversation.id
        const lastWords = snapshots.read(
          errandId,
          Effect.flatMap(runtime.lastWords(event.contextId), (w) =>
            Option.isSome(w)
              ? Effect.succeed(withHeldOwnData({ ...w.value, takenAt: t }, snapshots.get(errandId)))
              : Effect.fail('none' as const),
          ),
        )
        snapshots.expect(
          errandId,
          EffectRuntime.runPromise(effectRuntime)(
            lastWords.pipe(
              Effect.tap((s) =>
                Effect.sync(() => {
                  if (entries.get(errandId) === entry && entry.actor?.getSnapshot().status === 'active')
                    snapshots.set(errandId, s)
                }),
              ),
              Effect.ignore,
            ),
          ),
        )
        send(entry, { type: 'context.crashed', at: t })
        return
      }
      case 'BrowserCrashed': {
        journal({ t, op: 'browser.crashed' })
        const affected = event.contextIds.map((id) => byContext.get(id)).filter((e): e is Entry => e !== undefined)
        for (const entry of affected) {
          health.add({ at: t, level: 'warning', text: words.crashed, conversationId: entry.conversation.id })
          send(entry, { type: 'browser.crashed', at: t })
        }
      }
    }
  }

  return onRuntimeEvent
}
