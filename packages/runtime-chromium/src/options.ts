/**
 * Options of the Chromium runtime, the Chromium binary it runs and the flags it passes.
 *
 * @example
 * const options: ChromiumRuntimeOptions = { dataDir: '/var/lib/errands', log: console.log }
 */
import { existsSync } from 'node:fs'
import type { GuardPolicy } from '@errands/guard'
import type { FilesCaps, UpstreamProxy } from '@errands/runtime'

/**
 * What `ChromiumRuntime.make` / `layer` need.
 *
 * - `dataDir`: the person's profile lives in `<dataDir>/profile` (the main context).
 * - `executablePath`: the Chromium binary; default {@link resolveExecutable}.
 * - `policy`: the containment policy (G1, G2); default `defaultPolicy([])` — pass the engine's own ports!
 * - `mode`: `'own'` (default) or `'your-chrome'` (R3/L6: errands still run in our own browser,
 *   signed in nowhere; nothing is ever copied out of the person's Chrome).
 * - `log`: receives one line per notable event (guard blocks, crashes, launches); never secrets.
 * - `deadlineMs`: every browser call's deadline (default 30 s).
 * - `warmSpare`: keep one unused context with a blank page ready in the errands' browser, so the
 *   next `openContext` skips a renderer start (default true; costs one idle renderer, ~20 MB).
 *
 * @example
 * ChromiumRuntime.layer({ dataDir, policy: defaultPolicy([{ host: '127.0.0.1', port: 7070 }]) })
 */
export interface ChromiumRuntimeOptions {
  readonly dataDir: string
  readonly executablePath?: string | undefined
  readonly policy?: GuardPolicy | undefined
  readonly mode?: 'own' | 'your-chrome' | undefined
  readonly headless?: true | undefined
  readonly log?: ((line: string) => void) | undefined
  readonly deadlineMs?: number | undefined
  readonly warmSpare?: boolean | undefined
  /** Extra Chromium switches, after the required ones (e.g. `--host-resolver-rules=MAP *.example 127.0.0.1`). */
  readonly extraArgs?: ReadonlyArray<string> | undefined
  /**
   * Every context's connections leave through the egress (G3, default `true`). `false` is for
   * tests only: the hostile-page suite runs once without it to prove it can find leaks.
   */
  readonly egress?: boolean | undefined
  /**
   * The upstream proxy of every errand that names none of its own (`ERRANDS_UPSTREAM_PROXY`,
   * issue #21); the person's main context never uses it. Needs the egress.
   */
  readonly upstreamProxy?: UpstreamProxy | undefined
  /**
   * The caps of each errand's files folder (`ERRANDS_FILES_MAX_FILE_BYTES`, `…_MAX_ERRAND_BYTES`):
   * a download that would pass one is deleted and never listed. None: downloads are not capped.
   */
  readonly files?: FilesCaps | undefined
  /**
   * The cap on each errand's own IndexedDB, in bytes of its sealed encoding
   * (`ERRANDS_INDEXEDDB_MAX_ERRAND_BYTES`, E7): a database past it is left out of the snapshot,
   * by origin, and the rest kept. Default {@link DEFAULT_INDEXEDDB_MAX_BYTES}.
   */
  readonly indexedDbMaxBytes?: number | undefined
}

/** The default cap on an errand's own IndexedDB: 64 MiB. @example DEFAULT_INDEXEDDB_MAX_BYTES // 67108864 */
export const DEFAULT_INDEXEDDB_MAX_BYTES = 64 * 1024 * 1024

/**
 * The default deadline of one browser call. @example ChromiumRuntime.make({ dataDir, deadlineMs: DEFAULT_DEADLINE_MS *
 * 2 })
 */
export const DEFAULT_DEADLINE_MS = 30_000

/**
 * Chromium features Playwright 1.65 switches off in every Chromium it launches (its
 * `chromiumSwitches.ts`): among them the start-up calls to Google (`OptimizationHints`,
 * `NetworkTimeServiceQuerying`, `AimEnabled`, `PreconnectToSearch`), `HttpsUpgrades` and the
 * redirect abort under Fetch interception (`AvoidCorsURLLoaderRestartOnRedirect`). Chromium reads
 * only the last `--disable-features` switch, so a list of our own written after Playwright's
 * would switch all of these back on: {@link chromiumArgs} writes one switch holding both. A
 * test reads the switch a plain Playwright launch passes and fails when this list falls behind.
 */
export const PLAYWRIGHT_DISABLED_FEATURES: ReadonlyArray<string> = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
]

/** Chromium features Playwright 1.65 switches on (its `--enable-features`, kept the same way). */
export const PLAYWRIGHT_ENABLED_FEATURES: ReadonlyArray<string> = [
  'CDPScreenshotNewSurface',
  'SkipListAccountsWithoutGaiaCookies',
]

/**
 * Chromium features we switch off ourselves, and why:
 * - `WebUIOmniboxPopup`, `WebUIOmniboxAimPopup`, `WebUIOmniboxFullPopup`, `PreloadTopChromeWebUI`:
 *   headless Chromium 156 preloads the address-bar popup in an extra renderer per context; this
 *   saves that process (~20 MB PSS per context);
 * - `SpareRendererForSitePerProcess`: Chromium keeps one renderer started ahead for the next
 *   navigation, bound to the context that navigated last. With many contexts it is mostly thrown
 *   away unused (129 renderer starts instead of 72 in the same run), and whether it is alive at a
 *   given moment depends on which context moved last, so the process count stops saying what is
 *   open (ADR 0015, `npm run bench -- spare`).
 * - `AutofillServerCommunication`: a page with a form made Chromium ask
 *   `content-autofill.googleapis.com` for field types and vote on each submit (A5: no Google
 *   service; the egress refused it, every form, for nothing).
 */
export const ERRANDS_DISABLED_FEATURES: ReadonlyArray<string> = [
  'AutofillServerCommunication',
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
  'WebUIOmniboxFullPopup',
  'PreloadTopChromeWebUI',
  'SpareRendererForSitePerProcess',
]

const featureSwitch = (name: 'disable' | 'enable') => `--${name}-features=`

/**
 * The switches for one Chromium we start: {@link CHROMIUM_SWITCHES}, then `extra` in its order,
 * with every `--disable-features` / `--enable-features` (Playwright's, ours, and any in `extra`)
 * merged into one switch of each, written last: Chromium reads only the last of each. The
 * embedder's word wins: a feature `extra` switches on leaves the off list, and one it switches off
 * leaves the on list.
 *
 * @example
 * chromiumArgs(['--disable-features=Foo']).at(-2) //
 * "--disable-features=AvoidUnnecessaryBeforeUnloadCheckSync,…,SpareRendererForSitePerProcess,Foo"
 * chromiumArgs(['--enable-features=SpareRendererForSitePerProcess']) // Chromium's spare renderer back on
 */
export const chromiumArgs = (extra: ReadonlyArray<string> = []): string[] => {
  const asked = { disable: [] as string[], enable: [] as string[] }
  const rest: string[] = []
  for (const arg of extra) {
    const kind = (['disable', 'enable'] as const).find((k) => arg.startsWith(featureSwitch(k)))
    if (kind === undefined) rest.push(arg)
    else
      asked[kind].push(
        ...arg
          .slice(featureSwitch(kind).length)
          .split(',')
          .filter((f) => f !== ''),
      )
  }
  const disable = [...PLAYWRIGHT_DISABLED_FEATURES, ...ERRANDS_DISABLED_FEATURES].filter(
    (f) => !asked.enable.includes(f),
  )
  const enable = PLAYWRIGHT_ENABLED_FEATURES.filter((f) => !asked.disable.includes(f))
  const unique = (xs: ReadonlyArray<string>) => [...new Set(xs)].join(',')
  return [
    ...CHROMIUM_SWITCHES,
    ...rest,
    `${featureSwitch('disable')}${unique([...disable, ...asked.disable])}`,
    `${featureSwitch('enable')}${unique([...enable, ...asked.enable])}`,
  ]
}

/**
 * Switches for every Chromium we start, and why:
 * - `--headless`: no display here; `--no-sandbox`: we run as root in a container;
 * - `--disable-gpu`: no GPU; `--disable-quic`: keeps every request on TCP, where the guard and
 *   the fixture servers see it;
 * - `--no-first-run`, `--disable-background-networking`, `--disable-component-update`,
 *   `--disable-sync`: no traffic of Chromium's own (nothing leaves the machine unasked);
 * - `--webrtc-ip-handling-policy=disable_non_proxied_udp`: WebRTC sends no UDP of its own (no
 *   host candidates, no STUN, no TURN over UDP); it may only use TURN over TCP, which goes through
 *   the egress (G4). Chromium 156 knows this name; the older `--force-webrtc-ip-handling-policy`
 *   is silently ignored (measured: host candidates and STUN packets with it, none with this).
 *   WebTransport needs no switch: behind a proxy Chromium refuses it before any QUIC packet
 *   (measured, and proven by test/containment; `--disable-quic` alone did not stop it).
 * - `--gaia-url` and `--component-updater=url-source=` at port 1 of loopback: no Google service
 *   is called (A5). A persistent profile (the person's main browser) still asked
 *   `accounts.google.com/ListAccounts` at start (Playwright's `SkipListAccountsWithoutGaiaCookies`
 *   is not in Chromium 156) and `update.googleapis.com` for an on-demand component (a foreground
 *   check `--disable-component-update` does not stop). Port 1 is one of Chromium's unsafe ports:
 *   the request fails inside Chromium (`ERR_UNSAFE_PORT`) before any connection or proxy
 *   (measured with a net log: no connect, nothing reaches the egress). Side effect, wanted: no
 *   site is Chromium's own sign-in origin, `accounts.google.com` is a site like any other.
 * The feature lists come after these, from {@link chromiumArgs}.
 */
export const CHROMIUM_SWITCHES: ReadonlyArray<string> = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // G4: what cannot pass the egress is off (docs/runtime-chromium.md, the flag table; ADR 0017).
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  // A5: no Google service (see above; test/clients/noGoogle.test.ts reads the egress log).
  '--gaia-url=http://127.0.0.1:1/',
  '--component-updater=url-source=http://127.0.0.1:1/',
]

/**
 * Every switch for a Chromium we start with no extra ones: {@link CHROMIUM_SWITCHES} and the
 * merged feature lists. With extra switches, use {@link chromiumArgs} (never append a
 * `--disable-features` after these: it would replace the list).
 *
 * @example
 * chromium.launchServer({ executablePath, args: [...CHROMIUM_ARGS] })
 */
export const CHROMIUM_ARGS: ReadonlyArray<string> = chromiumArgs()

/**
 * The Chromium binary: `explicit`, else `$CHROMIUM_PATH`, else Debian's real binary
 * `/usr/lib/chromium/chromium` (the `/usr/bin/chromium` wrapper adds flags of its own), else
 * `/usr/bin/chromium`.
 *
 * @example
 * resolveExecutable() // "/usr/lib/chromium/chromium"
 */
export const resolveExecutable = (explicit?: string): string => {
  if (explicit) return explicit
  const fromEnv = process.env.CHROMIUM_PATH
  if (fromEnv) return fromEnv
  for (const candidate of ['/usr/lib/chromium/chromium', '/usr/bin/chromium']) {
    if (existsSync(candidate)) return candidate
  }
  return '/usr/bin/chromium'
}
