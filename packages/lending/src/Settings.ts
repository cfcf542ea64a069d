/**
 * The person's browser settings that lending obeys: the **always-allowed sites** (seeded into
 * every new errand, L1) and the **trust mode** (`ask` asks before an errand acts on another
 * site, and Allow lends that site's sign-in, L2; `auto` and `full` never ask about an ordinary
 * site and therefore never lend by themselves, L3).
 *
 * Two implementations here: in memory (tests, embedders that keep settings elsewhere) and a JSON
 * file `<dataDir>/settings.json`, decoded with effect/Schema at start-up and written crash-safely
 * (temp file, fsync, rename, fsync of the directory). A cluster of hosts keeps them in its
 * Postgres instead, so every host reads what any host was told (`@errands/cluster`'s
 * `PgSettings`, issue #24).
 *
 * @example
 * const settings = yield* Settings
 * yield* settings.allowAlways('www.shop.example') // stored as 'shop.example'
 * const { alwaysAllowed, trust } = yield* settings.get
 */
import { Context, Effect, Layer, ParseResult, Ref, Schema } from 'effect'
import { SettingsError } from './errors.ts'
import { readJsonFile, settingsPath, writeFileAtomic } from './settingsFile.ts'
import { siteOf } from './sites.ts'

/**
 * How much the person trusts errands to act without asking.
 *
 * @example
 * Schema.is(TrustMode)('auto') // true
 */
export const TrustMode = Schema.Literal('ask', 'auto', 'full')

/**
 * `ask` | `auto` | `full`.
 *
 * @example
 * const mode: TrustMode = 'ask'
 */
export type TrustMode = typeof TrustMode.Type

/**
 * Whether a string is a site as {@link siteOf} returns it for a real host: non-empty, host
 * characters only, already normalised.
 *
 * @example
 * isSite('shop.example') // true
 * isSite('www.shop.example') // false (its site is shop.example)
 * isSite('https://shop.example') // false
 */
export const isSite = (s: string): boolean => s !== '' && /^[a-z0-9._:-]+$/.test(s) && siteOf(s) === s

/**
 * A site given by a person or a file: any host or domain, decoded to its site with
 * {@link siteOf} (`www.shop.example` → `shop.example`); a string that is no host fails.
 *
 * @example
 * Schema.decodeUnknownSync(SiteFromHost)('.Shop.Example') // 'shop.example'
 */
export const SiteFromHost = Schema.transform(Schema.String, Schema.String, {
  strict: true,
  decode: siteOf,
  encode: (s) => s,
}).pipe(Schema.filter(isSite, { message: () => 'must be a host name or registrable domain, e.g. shop.example' }))

/** Sorted, without duplicates. */
const sortedUnique = (sites: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(sites)].sort()

/**
 * The settings as stored (version 1). Missing fields take their defaults: no always-allowed
 * site, trust mode `ask`.
 *
 * @example
 * Schema.decodeUnknownSync(BrowserSettingsSchema)({ alwaysAllowed: ['a.shop.example'] })
 * // { version: 1, alwaysAllowed: ['shop.example'], trust: 'ask' }
 */
export const BrowserSettingsSchema = Schema.Struct({
  version: Schema.optionalWith(Schema.Literal(1), { default: () => 1 as const }),
  alwaysAllowed: Schema.optionalWith(
    Schema.transform(Schema.Array(SiteFromHost), Schema.Array(Schema.String), {
      strict: true,
      decode: sortedUnique,
      encode: (s) => s,
    }),
    { default: () => [] },
  ),
  trust: Schema.optionalWith(TrustMode, { default: () => 'ask' as const }),
})

/**
 * The decoded settings: sites normalised, sorted and unique.
 *
 * @example
 * const s: BrowserSettings = { version: 1, alwaysAllowed: ['shop.example'], trust: 'ask' }
 */
export type BrowserSettings = typeof BrowserSettingsSchema.Type

/**
 * The default settings: nothing always allowed, trust mode `ask`.
 *
 * @example
 * defaultBrowserSettings.trust // 'ask'
 */
export const defaultBrowserSettings: BrowserSettings = { version: 1, alwaysAllowed: [], trust: 'ask' }

const decode = Schema.decodeUnknownEither(BrowserSettingsSchema, { errors: 'all', onExcessProperty: 'ignore' })

/**
 * Decodes settings from unknown input (a parsed file, a form). The error names the failing
 * fields.
 *
 * @example
 * Effect.runSync(decodeSettings({ trust: 'auto' })) // { version: 1, alwaysAllowed: [], trust: 'auto' }
 */
export const decodeSettings = (input: unknown, source = 'settings'): Effect.Effect<BrowserSettings, SettingsError> =>
  Effect.mapError(decode(input), (error) => {
    // Paths only: a schema message quotes the offending value, and a pasted URL may carry a token (L7).
    const paths = [
      ...new Set(ParseResult.ArrayFormatter.formatErrorSync(error).map((i) => i.path.join('.') || '(root)')),
    ]
    return new SettingsError({
      reason: 'invalid-file',
      message:
        `${source} is not valid browser settings (invalid: ${paths.join(', ')}); expected { "version": 1, ` +
        `"alwaysAllowed": ["shop.example", …], "trust": "ask" | "auto" | "full" }`,
    })
  })

/**
 * The site of a host or domain a caller gives (a person, a permission card), or
 * `SettingsError('invalid-site')` when it is no host.
 *
 * @example
 * Effect.runSync(parseSite('www.Shop.example')) // 'shop.example'
 */
export const parseSite = (input: string): Effect.Effect<string, SettingsError> => {
  const site = siteOf(input)
  return isSite(site)
    ? Effect.succeed(site)
    : Effect.fail(
        new SettingsError({
          reason: 'invalid-site',
          // The input is echoed only when it cannot be a URL (which might carry a token, L7).
          message:
            `${/^[\w.:-]{1,80}$/.test(input) ? `"${input}"` : 'the site given'} is not a host name or ` +
            `registrable domain (e.g. shop.example)`,
        }),
      )
}

/**
 * What the settings service does. Writes are serialised; a write that fails leaves the previous
 * settings in force.
 *
 * @example
 * const s = yield* Settings
 * yield* s.setTrust('auto')
 */
export interface SettingsShape {
  /** The current settings (a cluster's are read from its database, which may fail). */
  readonly get: Effect.Effect<BrowserSettings, SettingsError>
  /** Adds a site (any host of it) to the always-allowed sites. */
  readonly allowAlways: (site: string) => Effect.Effect<BrowserSettings, SettingsError>
  /**
   * Removes a site (any host of it) from the always-allowed sites. Idempotent. Use `Lending.revoke` to also take it
   * back from errands.
   */
  readonly removeAlways: (site: string) => Effect.Effect<BrowserSettings, SettingsError>
  readonly setTrust: (mode: TrustMode) => Effect.Effect<BrowserSettings, SettingsError>
}

/**
 * Settings over a store: `persist` is called with the new settings before they take effect.
 *
 * @example
 * const settings = yield* makeSettings(defaultBrowserSettings, () => Effect.void)
 */
export const makeSettings = (
  initial: BrowserSettings,
  persist: (next: BrowserSettings) => Effect.Effect<void, SettingsError>,
): Effect.Effect<SettingsShape> =>
  Effect.gen(function* () {
    const ref = yield* Ref.make(initial)
    const lock = yield* Effect.makeSemaphore(1)
    const change = (f: (s: BrowserSettings) => BrowserSettings) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const next = f(yield* Ref.get(ref))
          yield* persist(next)
          yield* Ref.set(ref, next)
          return next
        }),
      )
    return {
      get: Ref.get(ref),
      allowAlways: (input) =>
        Effect.flatMap(parseSite(input), (site) =>
          change((s) => ({ ...s, alwaysAllowed: sortedUnique([...s.alwaysAllowed, site]) })),
        ),
      removeAlways: (input) =>
        Effect.flatMap(parseSite(input), (site) =>
          change((s) => ({ ...s, alwaysAllowed: s.alwaysAllowed.filter((x) => x !== site) })),
        ),
      setTrust: (mode) => change((s) => ({ ...s, trust: mode })),
    }
  })

/**
 * The settings service (`@errands/lending/Settings`).
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const settings = yield* Settings
 *   return (yield* settings.get).alwaysAllowed
 * })
 * Effect.runPromise(program.pipe(Effect.provide(Settings.layer('/var/lib/errands'))))
 */
export class Settings extends Context.Tag('@errands/lending/Settings')<Settings, SettingsShape>() {
  /**
   * Settings in `<dataDir>/settings.json`: read and decoded once when the layer is built (a
   * missing file means the defaults; an invalid one fails with `SettingsError('invalid-file')`),
   * written crash-safely on every change.
   *
   * @example
   * Effect.provide(program, Settings.layer('/var/lib/errands'))
   */
  static layer(dataDir: string): Layer.Layer<Settings, SettingsError> {
    return Layer.effect(Settings, Settings.make(dataDir))
  }

  /**
   * Builds the file-backed settings (see {@link Settings.layer}).
   *
   * @example
   * const settings = yield* Settings.make('/var/lib/errands')
   */
  static make(dataDir: string): Effect.Effect<SettingsShape, SettingsError> {
    const path = settingsPath(dataDir)
    return Effect.gen(function* () {
      const raw = yield* readJsonFile(path)
      const initial = raw === undefined ? defaultBrowserSettings : yield* decodeSettings(raw, path)
      return yield* makeSettings(initial, (next) =>
        writeFileAtomic(path, `${JSON.stringify(Schema.encodeSync(BrowserSettingsSchema)(next), null, 2)}\n`),
      )
    })
  }

  /**
   * Settings in memory, starting from `initial` (decoded like a file: hosts become sites).
   * Dies on invalid `initial` — it is test or embedder code, not a person's input.
   *
   * @example
   * Effect.provide(program, Settings.layerMemory({ alwaysAllowed: ['shop.example'], trust: 'ask' }))
   */
  static layerMemory(initial: Partial<typeof BrowserSettingsSchema.Encoded> = {}): Layer.Layer<Settings> {
    return Layer.effect(
      Settings,
      Effect.flatMap(Effect.orDie(decodeSettings(initial, 'initial settings')), (s) =>
        makeSettings(s, () => Effect.void),
      ),
    )
  }

  /**
   * A stand-in whose missing methods die loudly, naming the method.
   *
   * @example
   * Settings.layerTest({ get: Effect.succeed(defaultBrowserSettings) })
   */
  static layerTest(partial: Partial<SettingsShape>): Layer.Layer<Settings> {
    const missing = (name: string) => Effect.dieMessage(`Settings.layerTest: "${name}" was not provided`)
    return Layer.succeed(Settings, {
      get: missing('get'),
      allowAlways: () => missing('allowAlways'),
      removeAlways: () => missing('removeAlways'),
      setTrust: () => missing('setTrust'),
      ...partial,
    })
  }
}
