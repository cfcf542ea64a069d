/**
 * The person's wheel across the cluster (K4, issue #26): taking the wheel of a session's errand,
 * handing it back and the person's input go to the host that holds it open (wheelRpcs.ts), from
 * `/v1/person/wheel`, `/v1/person/hand-back` and the live view of whichever host the person uses.
 * A chat's conversation is this host's own and stays here.
 *
 * @example
 * Layer.effect(PersonWheel, clusterWheel)
 */
import { localWheel, PersonWheel, sessionKeyOf } from '@errands/host'
import { Effect } from 'effect'
import { Errand } from './ErrandEntity.ts'

/**
 * The wheel, on each session's owner.
 *
 * @example
 * const wheel = yield* clusterWheel
 */
export const clusterWheel = Effect.gen(function* () {
  const here = yield* localWheel
  const client = yield* Errand.client
  return PersonWheel.of({
    takeWheel: (conversationId) => {
      const key = sessionKeyOf(conversationId)
      return key === undefined ? here.takeWheel(conversationId) : client(key).TakeWheel({})
    },
    handBack: (conversationId, note) => {
      const key = sessionKeyOf(conversationId)
      return key === undefined ? here.handBack(conversationId, note) : client(key).HandBack({ note })
    },
    driving: (conversationId) => {
      const key = sessionKeyOf(conversationId)
      return key === undefined ? here.driving!(conversationId) : client(key).Driving({})
    },
    // The person in the loop as the owner has it (askRpcs.ts): another host's live view lists it.
    view: (conversationId) => {
      const key = sessionKeyOf(conversationId)
      return key === undefined ? Effect.fail(new Error(`not a session: ${conversationId}`)) : client(key).View({})
    },
    input: (conversationId, events) => {
      const key = sessionKeyOf(conversationId)
      return key === undefined ? here.input!(conversationId, events) : client(key).WheelInput({ events })
    },
  })
})
