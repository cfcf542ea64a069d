import { realpathSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { Effect, Option } from 'effect'
import type { StoreError } from './errors.ts'
import { FORMAT_VERSION } from './format.ts'
import { attemptIfExists, writeAtomic, type StoreFs } from './fs.ts'

/**
 * The Cache Directory Tagging signature (https://bford.info/cachedir/), honoured by tar
 * (`--exclude-caches`), restic (`--exclude-caches`), borg (`--exclude-caches`), …
 *
 * @example
 * readFileSync(join(dir, 'CACHEDIR.TAG'), 'utf8').startsWith(CACHEDIR_TAG_SIGNATURE) // true
 */
export const CACHEDIR_TAG_SIGNATURE = 'Signature: 8a477f597d28d172789f06886806bc55'

/**
 * The tag file's name and contents. The signature must be the file's first bytes.
 *
 * @example
 * writeFileSync(join(dir, CACHEDIR_TAG.name), CACHEDIR_TAG.contents)
 */
export const CACHEDIR_TAG = {
  name: 'CACHEDIR.TAG',
  contents: `${CACHEDIR_TAG_SIGNATURE}
# This file is a cache directory tag created by the Errands sealed store.
# The directory holds parked browser sessions sealed under a device key; they are derived
# state that is useless on another machine and must not be backed up.
# For information about cache directory tags see https://bford.info/cachedir/
`,
} as const

/**
 * The manifest that tells a backup tool (or a person) the store is derived and safe to skip.
 *
 * @example
 * JSON.parse(fs.readFileSync(join(dir, BACKUP_EXCLUDE.name), 'utf8')).derived // true
 */
export const BACKUP_EXCLUDE = {
  name: 'BACKUP-EXCLUDE.json',
  contents: `${JSON.stringify(
    {
      derived: true,
      excludeFromBackup: true,
      safeToDelete: true,
      what:
        'Errands sealed store: parked browser sessions (cookies, localStorage, tabs) sealed with AES-256-GCM ' +
        'under a device key',
      why:
        "Derived, device-bound state: unreadable without this device's key, dropped after 14 days; a backup would " +
        'only copy sealed secrets around.',
      format: `errands-sealed-store/${FORMAT_VERSION}`,
      cachedirTag: 'CACHEDIR.TAG',
    },
    null,
    2,
  )}\n`,
} as const

/**
 * Writes CACHEDIR.TAG and BACKUP-EXCLUDE.json into the store directory (S3) when they are
 * missing or differ, crash-safely like every other file of the store.
 *
 * @example
 * yield* writeMarkers(nodeFs, dir)
 */
export const writeMarkers = (fs: StoreFs, dir: string): Effect.Effect<void, StoreError> =>
  Effect.forEach(
    [CACHEDIR_TAG, BACKUP_EXCLUDE],
    ({ name, contents }) =>
      attemptIfExists('read a backup marker', () => fs.readFile(join(dir, name))).pipe(
        Effect.flatMap((existing) =>
          Option.isSome(existing) && new TextDecoder().decode(existing.value) === contents
            ? Effect.void
            : writeAtomic(fs, dir, name, new TextEncoder().encode(contents), 0o600, 'write a backup marker'),
        ),
      ),
    { discard: true },
  )

/** Resolves symlinks in the longest existing prefix of `path`, so a link into the store is caught. */
const realish = (path: string): string => {
  let head = resolve(path)
  const tail: Array<string> = []
  for (;;) {
    try {
      return join(realpathSync.native(head), ...tail.reverse())
    } catch {
      const parent = dirname(head)
      if (parent === head) return resolve(path)
      tail.push(head.slice(parent.length).replace(/^[\\/]/, ''))
      head = parent
    }
  }
}

const fold = (path: string): string =>
  process.platform === 'darwin' || process.platform === 'win32' ? path.toLowerCase() : path

const inside = (path: string, dir: string): boolean => {
  const rel = relative(fold(dir), fold(path))
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/**
 * Whether `path` is the store directory or inside it (S3). The embedding app calls this in its
 * agent file tools (read, write, list, delete, upload) and refuses protected paths. Relative
 * paths resolve against the process's working directory; `..` segments and symlinks (of the
 * parts that exist) are resolved, and the comparison ignores case on macOS and Windows.
 *
 * @example
 * isProtectedPath('/home/me/.errands/store/errands/x.sealed', '/home/me/.errands/store') // true
 * isProtectedPath('/home/me/notes.txt', '/home/me/.errands/store') // false
 */
export const isProtectedPath = (path: string, storeDir: string): boolean =>
  inside(resolve(path), resolve(storeDir)) || inside(realish(path), realish(storeDir))
