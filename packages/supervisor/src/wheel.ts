/**
 * Taking the wheel and asking for help (P1–P3, issue #26). A person takes the wheel of a watched
 * errand from the live view; while they drive, the errand machine is in `active.wheel.person`,
 * where the cap and idleness never park it (C2), and the agents' acting verbs are refused with
 * {@link PersonDriving}. The hand-back, with an optional note, returns control and answers every
 * agent waiting in {@link WheelShape.askForHelp}.
 *
 * While an agent waits for help, its errand shows waiting for the person (`active.asking`, through
 * asking.ts); the hand-back answers it `handed-back`, the clock `timeout`, a cancelled call
 * `withdrawn`. The journal records that the wheel was taken and handed back and the ask and its
 * end, never the reason, the note nor anything the person typed (P5, L7).
 *
 * @example
 * const wheel = makeWheel(core, actors, admission)
 * const answer = yield* wheel.askForHelp('session:k1', 'a captcha', 60_000) // waits
 * yield* wheel.takeWheel('session:k1') // the live view's button
 * yield* wheel.handBack('session:k1', 'solved it') // → answer: { handedBack: true, note: 'solved it' }
 */
import { Deferred, Effect } from 'effect'
import type { Admission } from './admission.ts'
import { type AskingShape, makeAsking } from './asking.ts'
import type { SupervisorCore } from './core.ts'
import { type HandBack, InvalidRequest, type SessionsShape } from '@errands/sessions'
import type { Actors } from './actors.ts'
import { isIsolated, isPersonDriving, viewOf, type Entry, type HelpAsked } from './views.ts'

/** The supervisor's wheel operations, and the asking every ask of a person goes through (words: @errands/sessions). */
export type WheelShape = Pick<
  SessionsShape,
  'takeWheel' | 'handBack' | 'personDriving' | 'askForHelp' | 'onHandBack' | keyof AskingShape
>

/**
 * The wheel operations of one supervisor.
 *
 * @example
 * const { takeWheel, handBack } = makeWheel(core, actors, admission)
 */
export const makeWheel = (core: SupervisorCore, actors: Actors, admission: Admission): WheelShape => {
  const { runtime, entries, changeListeners, handBackListeners, now, journal } = core
  const { entryOf, send } = actors
  const asking = makeAsking(core, actors)
  // Help asks' ids: unique within this supervisor, and the same on every replay.
  let helpAsks = 0
  const changed = (entry: Entry) => {
    const view = viewOf(entry, runtime.mainContext)
    for (const listener of changeListeners) listener(view)
  }

  return {
    ...asking,
    takeWheel: (conversationId) =>
      Effect.gen(function* () {
        const entry = yield* entryOf(conversationId)
        if (!isIsolated(entry)) {
          return yield* new InvalidRequest({
            reason: 'invalid-input',
            message: "This chat browses in the person's own browser; there is no separate wheel to take.",
          })
        }
        journal({ t: now(), op: 'wheel.take', conversationId })
        yield* admission.ensureActive(entry, false)
        send(entry, { type: 'wheel.taken', at: now() })
        return viewOf(entry, runtime.mainContext)
      }),
    handBack: (conversationId, note) =>
      Effect.gen(function* () {
        const entry = yield* entryOf(conversationId)
        // The note is for the agent only: it is not journaled (P5).
        journal({ t: now(), op: 'wheel.handback', conversationId })
        for (const listener of handBackListeners) listener(conversationId, note ?? null)
        send(entry, { type: 'wheel.handedBack', at: now() })
        const waiting = entry.help ?? []
        entry.help = []
        for (const asked of waiting) {
          yield* asking.answered(conversationId, asked.id, 'handed-back')
          yield* Deferred.succeed(asked.answered, note ?? null)
        }
        if (waiting.length > 0) changed(entry)
      }),
    onHandBack: (listener) => {
      handBackListeners.add(listener)
      return () => void handBackListeners.delete(listener)
    },
    personDriving: (conversationId) => {
      const entry = entries.get(conversationId)
      return entry !== undefined && isPersonDriving(entry)
    },
    askForHelp: (conversationId, reason, timeoutMs) =>
      Effect.acquireUseRelease(
        Effect.gen(function* () {
          const entry = yield* entryOf(conversationId)
          const t = now()
          const asked: HelpAsked = {
            id: `h${++helpAsks}`,
            reason,
            askedAt: t,
            expiresAt: t + timeoutMs,
            answered: yield* Deferred.make<string | null>(),
          }
          yield* asking.asked(conversationId, { id: asked.id, ask: 'help' })
          entry.help = [...(entry.help ?? []), asked]
          changed(entry)
          return { entry, asked }
        }),
        ({ asked }) =>
          Effect.timeoutTo(Deferred.await(asked.answered), {
            duration: timeoutMs,
            onSuccess: (note): HandBack => ({ handedBack: true, note }),
            onTimeout: (): HandBack => ({ handedBack: false, reason: 'timeout' }),
          }),
        // Answered (the hand-back ended it), timed out or abandoned (the agent's call was cancelled): the request is
        // gone.
        ({ entry, asked }, exit) =>
          Effect.gen(function* () {
            if (entry.help === undefined || !entry.help.includes(asked)) return
            entry.help = entry.help.filter((h) => h !== asked)
            yield* asking.answered(conversationId, asked.id, exit._tag === 'Success' ? 'timeout' : 'withdrawn')
            changed(entry)
          }),
      ),
  }
}
