/**
 * The environment our Chromiums start with: an allow-list of what Chromium needs, never the
 * host's whole environment. The host's environment holds its secrets — `ERRANDS_UPSTREAM_PROXY`
 * and `ERRANDS_DATABASE_URL` with their passwords, an agent's API keys, `http_proxy` with its
 * credentials — and every process of the browser inherits what it is given, renderers included,
 * which here run without a sandbox: a renderer taken over by a page could read
 * `/proc/self/environ`. So Chromium gets only:
 *
 * - where things are and who runs it: `PATH`, `HOME`, `USER`, `LOGNAME`, the XDG folders;
 * - language and time: `LANG`, `LANGUAGE`, every `LC_*`, `TZ`;
 * - fonts: `FONTCONFIG_FILE`, `FONTCONFIG_PATH`, `FONTCONFIG_SYSROOT`;
 * - the setuid sandbox helper, when one is installed: `CHROME_DEVEL_SANDBOX`;
 * - and what we give it: its own `TMPDIR` and the owner mark (`ERRANDS_OWNER`), by which
 *   processes.ts finds our browsers (docs/secrets.md).
 *
 * @example
 * chromium.launch({ env: browserEnv(process.env, tmpDir, owner) })
 */
import { OWNER_VARIABLE } from './processes.ts'

/**
 * The names passed on from the host's environment as they are (`LC_*` too, see {@link browserEnv}).
 *
 * @example
 * BROWSER_ENV_NAMES.includes('PATH') // true
 */
export const BROWSER_ENV_NAMES: ReadonlyArray<string> = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_DATA_DIRS',
  'XDG_CONFIG_DIRS',
  'XDG_RUNTIME_DIR',
  'FONTCONFIG_FILE',
  'FONTCONFIG_PATH',
  'FONTCONFIG_SYSROOT',
  'CHROME_DEVEL_SANDBOX',
]

const PASSED = new Set(BROWSER_ENV_NAMES)

/**
 * The environment of a Chromium we start: the allowed names of `host` (and every `LC_*`), its own
 * `TMPDIR` and our owner mark; nothing else of the host's.
 *
 * @example
 * browserEnv({ PATH: '/usr/bin', ERRANDS_UPSTREAM_PROXY: 'http://u:p@proxy:8080' }, '/tmp/errands-chromium-1', '/data')
 * // { PATH: '/usr/bin', TMPDIR: '/tmp/errands-chromium-1', ERRANDS_OWNER: '/data' }
 */
export const browserEnv = (
  host: Readonly<Record<string, string | undefined>>,
  tmpDir: string,
  owner: string,
): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(host)) {
    if (value !== undefined && (PASSED.has(name) || name.startsWith('LC_'))) env[name] = value
  }
  env.TMPDIR = tmpDir
  env[OWNER_VARIABLE] = owner
  return env
}
