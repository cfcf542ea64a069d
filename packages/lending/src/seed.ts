/**
 * Seeding a new errand (L1): a copy of the main context's storage state for **exactly** the
 * always-allowed sites, filtered by site — never the whole jar.
 *
 * `seedFrom` needs only the runtime and the settings, not the supervisor: that is what lets it
 * be passed as `SupervisorOptions.seed` while the supervisor is being built (the rest of lending
 * needs the supervisor, see `Lending.supervisorLayer`).
 *
 * @example
 * const seed = seedFrom(runtime, settings)
 * const supervisor = yield* makeSupervisor({ settings: supervisorSettings, seed })
 */
import { emptyStorage, Runtime, type RuntimeShape } from '@errands/runtime'
import type { Conversation } from '@errands/sessions'
import type { Seed } from '@errands/supervisor'
import { Effect } from 'effect'
import { mainStorageFor } from './moves.ts'
import { originSites, redactedCookieList } from './redact.ts'
import { Settings, type SettingsShape } from './Settings.ts'

/**
 * The seed function for `SupervisorOptions.seed`: reads the always-allowed sites at the moment
 * the errand opens, copies exactly their cookies and localStorage from the main context, and
 * names them as the errand's lent sites (E6). If the main context cannot be read, the errand
 * starts signed out (the safe direction) and a warning says so — by names and sites only.
 *
 * @example
 * Supervisor.layer({ settings, seed: seedFrom(runtime, settings) })
 */
export const seedFrom =
  (runtime: RuntimeShape, settings: SettingsShape) =>
  (conversation: Conversation): Effect.Effect<Seed> =>
    Effect.gen(function* () {
      const { alwaysAllowed } = yield* settings.get
      if (alwaysAllowed.length === 0) return { storage: emptyStorage, lentSites: [] }
      const storage = yield* mainStorageFor(runtime, new Set(alwaysAllowed))
      yield* Effect.logInfo(
        `seeded errand ${conversation.id} with always-allowed sites ${alwaysAllowed.join(', ')}: cookies ` +
          `${redactedCookieList(storage.cookies)}; localStorage of ` +
          `${originSites(storage.origins).join(', ') || '(none)'}`,
      )
      return { storage, lentSites: [...alwaysAllowed] }
    }).pipe(
      Effect.catchAll((e) =>
        Effect.as(Effect.logWarning(`errand ${conversation.id} starts signed out: ${e.message}`), {
          storage: emptyStorage,
          lentSites: [],
        } satisfies Seed),
      ),
    )

/**
 * {@link seedFrom} over the `Runtime` and `Settings` services.
 *
 * @example
 * const seed = yield* seeder
 */
export const seeder: Effect.Effect<(conversation: Conversation) => Effect.Effect<Seed>, never, Runtime | Settings> =
  Effect.map(Effect.all([Runtime, Settings]), ([runtime, settings]) => seedFrom(runtime, settings))
