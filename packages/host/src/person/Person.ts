/**
 * The person's endpoints (`/v1/person/...`, token only): browser settings and always-allowed
 * sites, revoke, sign out everywhere, the permission card and its Allow (L2), a chat's
 * own-browser toggle (E2), the list of sessions and releasing one, and the XState inspector's
 * switch (V3, docs/inspector.md). The page verbs on the main
 * context (for signing in) are `Browsing` with the main target.
 *
 * Lending (`@errands/lending`) is optional: without it the settings and lending calls answer
 * `HostUnavailable('not-wired')` and the rest still works.
 *
 * @example
 * const person = yield* Person
 * yield* person.ownBrowser('chat:c1', true)
 */
import type { BrowserSettings, LendingError, LendReport, Permission, TakeBackReport, TrustMode } from '@errands/lending'
import type {
  Ask,
  AskOutcome,
  ErrandView,
  HandBack,
  InspectorStatus,
  InspectorUnavailable,
  SupervisorError,
} from '@errands/sessions'
import { Context, Effect, Layer } from 'effect'
import type { HostUnavailable } from '../errors.ts'

/** Every way a person's call can fail. */
export type PersonError = LendingError | SupervisorError | HostUnavailable | InspectorUnavailable

/** What the person can do. Conversation ids are the host's (`session:<key>`, `chat:<id>`) or an embedder's. */
export interface PersonShape {
  readonly settings: Effect.Effect<BrowserSettings, PersonError>
  readonly allowAlways: (site: string) => Effect.Effect<BrowserSettings, PersonError>
  /** Removes the site from the always-allowed sites and takes it back from every errand (L5). */
  readonly revoke: (site: string) => Effect.Effect<TakeBackReport, PersonError>
  readonly setTrust: (mode: TrustMode) => Effect.Effect<BrowserSettings, PersonError>
  readonly signOutEverywhere: Effect.Effect<TakeBackReport, PersonError>
  /** The permission card for a site in a conversation's errand (changes nothing). */
  readonly ask: (conversationId: string, site: string) => Effect.Effect<Permission, PersonError>
  /** The person pressed Allow: lends the site's sign-in to that errand only (L2). */
  readonly allow: (conversationId: string, site: string) => Effect.Effect<LendReport, PersonError>
  /** Gives a chat a browser of its own, or takes it back (E2). */
  readonly ownBrowser: (conversationId: string, on: boolean) => Effect.Effect<ErrandView, PersonError>
  /** A chat was deleted: its errand closes and is forgotten (E3). */
  readonly deleteChat: (conversationId: string) => Effect.Effect<void, PersonError>
  readonly sessions: Effect.Effect<ReadonlyArray<ErrandView>, PersonError>
  /** One conversation's errand, asked of its session directly (not found among every session's). */
  readonly view: (conversationId: string) => Effect.Effect<ErrandView, PersonError>
  /** Closes and forgets a conversation's errand (idempotent). */
  readonly release: (conversationId: string) => Effect.Effect<void, PersonError>
  /** The XState inspector: on or off, and the page to open while on (V3). */
  readonly inspector: Effect.Effect<InspectorStatus, PersonError>
  /** Switches the XState inspector on or off (idempotent); fails when its port is taken. */
  readonly setInspector: (on: boolean) => Effect.Effect<InspectorStatus, PersonError>
  /** An agent asks for help (P3) and waits, at most `timeoutMs`, for a person's hand-back. */
  readonly askForHelp: (
    conversationId: string,
    reason: string,
    timeoutMs: number,
  ) => Effect.Effect<HandBack, PersonError>
  /** Whether a person has the wheel of the conversation's errand now (P1). */
  readonly personDriving: (conversationId: string) => boolean
  /** An agent of the conversation asked the person (a sign-in question, P4): its errand waits for the person. */
  readonly asked: (conversationId: string, ask: Ask) => Effect.Effect<void, PersonError>
  /** How that ask ended; once for every `asked`. */
  readonly answered: (conversationId: string, id: string, outcome: AskOutcome) => Effect.Effect<void>
}

/**
 * The person's service (`@errands/host/Person`).
 *
 * @example
 * Effect.flatMap(Person, (p) => p.sessions)
 */
export class Person extends Context.Tag('@errands/host/Person')<Person, PersonShape>() {
  /**
   * A stand-in whose missing methods die loudly, naming the method.
   *
   * @example
   * Person.layerTest({ sessions: Effect.succeed([]) })
   */
  static layerTest(partial: Partial<PersonShape>): Layer.Layer<Person> {
    const missing = (name: string) => Effect.dieMessage(`Person.layerTest: "${name}" was not provided`)
    return Layer.succeed(Person, {
      settings: missing('settings'),
      allowAlways: () => missing('allowAlways'),
      revoke: () => missing('revoke'),
      setTrust: () => missing('setTrust'),
      signOutEverywhere: missing('signOutEverywhere'),
      ask: () => missing('ask'),
      allow: () => missing('allow'),
      ownBrowser: () => missing('ownBrowser'),
      deleteChat: () => missing('deleteChat'),
      sessions: missing('sessions'),
      release: () => missing('release'),
      inspector: missing('inspector'),
      setInspector: () => missing('setInspector'),
      askForHelp: () => missing('askForHelp'),
      personDriving: () => false,
      view: () => missing('view'),
      asked: () => missing('asked'),
      answered: () => missing('answered'),
      ...partial,
    })
  }
}
