/**
 * The person's service over the one session service (ADR 0027) and, when they are provided, lending and settings;
 * its take-backs reach the other hosts of a cluster through {@link Placement} when one is provided.
 *
 * @example
 * Layer.effect(Person, makePerson) // needs Sessions; uses Lending, Settings and InspectorSwitch when present
 */
import { Lending, Settings } from '@errands/lending'
import { InvalidRequest, Sessions } from '@errands/sessions'
import { InspectorSwitch } from '@errands/supervisor'
import { Effect, Option } from 'effect'
import { HostUnavailable } from '../errors.ts'
import { everywhere, Placement } from '../placement.ts'
import { isSessionConversation, sessionKeyOf, type SessionKey } from '../sessionKey.ts'
import type { PersonShape } from './Person.ts'

const notWired = (what: string) =>
  Effect.fail(
    new HostUnavailable({
      reason: 'not-wired',
      message: `${what} is not available in this host (lending is not wired in).`,
    }),
  )

/**
 * Builds the person's service.
 *
 * @example
 * const person = yield* makePerson
 */
export const makePerson: Effect.Effect<PersonShape, never, Sessions> = Effect.gen(function* () {
  const sessions = yield* Sessions
  const lending = yield* Effect.serviceOption(Lending)
  const settings = yield* Effect.serviceOption(Settings)
  const inspector = yield* Effect.serviceOption(InspectorSwitch)
  const placement = Option.getOrElse(yield* Effect.serviceOption(Placement), () => Placement.here)
  const elsewhere = <A>(conversationId: string, there: (key: SessionKey) => A | undefined): A | undefined => {
    const key = sessionKeyOf(conversationId)
    return key === undefined ? undefined : there(key)
  }
  const withInspector = <A, E>(f: (i: InspectorSwitch['Type']) => Effect.Effect<A, E>) =>
    Option.match(inspector, {
      onNone: () =>
        Effect.fail(
          new HostUnavailable({
            reason: 'not-wired',
            message: 'The XState inspector is not available in this host (no inspector switch is wired in).',
          }),
        ),
      onSome: f,
    })
  const withSettings = <A, E>(what: string, f: (s: Settings['Type']) => Effect.Effect<A, E>) =>
    Option.match(settings, { onNone: () => notWired(what), onSome: f })
  const withLending = <A, E>(what: string, f: (l: Lending['Type']) => Effect.Effect<A, E>) =>
    Option.match(lending, { onNone: () => notWired(what), onSome: f })
  return {
    settings: withSettings('Browser settings', (s) => s.get),
    allowAlways: (site) => withSettings('Always-allowed sites', (s) => s.allowAlways(site)),
    revoke: (site) => withLending('Revoking a site', (l) => everywhere(placement, site, l.revoke(site))),
    setTrust: (mode) => withSettings('The trust mode', (s) => s.setTrust(mode)),
    signOutEverywhere: withLending('Signing out everywhere', (l) => everywhere(placement, null, l.signOutEverywhere)),
    // A session's errand may be held by another host of a cluster: its card is read and its Allow lent there.
    ask: (conversationId, site) =>
      elsewhere(conversationId, (key) => placement.ask(key, site)) ??
      withLending('The permission card', (l) => l.ask(conversationId, site)),
    allow: (conversationId, site) =>
      elsewhere(conversationId, (key) => placement.allow(key, site)) ??
      withLending('Lending a sign-in', (l) => l.allow(conversationId, site)),
    ownBrowser: (conversationId, on) =>
      // A session's conversation is a task, always in a context of its own: refused before anything is
      // registered or opened — the answer its owner gives, given here without reaching for the errand. Registered
      // as a chat, a non-owner of a cluster opened a context named after the session (and resumed a parked one
      // here) before it answered 400.
      isSessionConversation(conversationId)
        ? Effect.fail(
            new InvalidRequest({
              reason: 'tasks-always-isolated',
              message: 'Tasks and helpers always browse in a context of their own; only a chat can be toggled.',
            }),
          )
        : // A chat the host has not seen yet is registered (on the main context) before the toggle.
          Effect.zipRight(
            sessions.open({ id: conversationId, kind: 'chat' }),
            sessions.setOwnBrowser(conversationId, on),
          ),
    deleteChat: (conversationId) => sessions.chatDeleted(conversationId),
    sessions: sessions.list,
    view: (conversationId) => sessions.view(conversationId),
    release: (conversationId) => sessions.release(conversationId),
    inspector: withInspector((i) => i.status),
    setInspector: (on) => withInspector((i) => i.set(on)),
    askForHelp: (conversationId, reason, timeoutMs) => sessions.askForHelp(conversationId, reason, timeoutMs),
    personDriving: (conversationId) => sessions.personDriving(conversationId),
    asked: (conversationId, ask) => sessions.asked(conversationId, ask),
    answered: (conversationId, id, outcome) => sessions.answered(conversationId, id, outcome),
  }
})
