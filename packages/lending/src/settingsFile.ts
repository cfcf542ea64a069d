/**
 * The settings file on disk: `<dataDir>/settings.json`, read as JSON and written crash-safely —
 * a kill at any moment leaves the old file or the new one, never a torn one: the new text goes
 * to a temp file in the same directory, is fsynced, renamed over the old file, and the directory
 * is fsynced so the rename itself survives a power cut.
 *
 * @example
 * yield* writeFileAtomic(settingsPath(dir), '{"trust":"ask"}\n')
 * const raw = yield* readJsonFile(settingsPath(dir)) // { trust: 'ask' }
 */
import { randomBytes } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { Effect } from 'effect'
import { SettingsError } from './errors.ts'

/**
 * Where the settings of a data directory live.
 *
 * @example
 * settingsPath('/var/lib/errands') // '/var/lib/errands/settings.json'
 */
export const settingsPath = (dataDir: string): string => join(dataDir, 'settings.json')

/** The errno code of a Node error, if any. */
const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined

const ioError = (what: string, path: string) => (error: unknown) =>
  new SettingsError({ reason: 'io', message: `could not ${what} ${path} (${codeOf(error) ?? 'unknown error'})` })

/** Temp files of `path` that a killed write may have left: `settings.json.<hex>.tmp`. */
const isTempOf = (path: string) => (name: string) => name.startsWith(`${basename(path)}.`) && name.endsWith('.tmp')

/**
 * Reads and parses a JSON file; `undefined` when it does not exist. Temp files a killed write
 * left beside it are removed first. Invalid JSON is `SettingsError('invalid-file')`.
 *
 * @example
 * const raw = yield* readJsonFile('/var/lib/errands/settings.json')
 */
export const readJsonFile = (path: string): Effect.Effect<unknown, SettingsError> =>
  Effect.gen(function* () {
    const dir = dirname(path)
    const names = yield* Effect.tryPromise({
      try: () => readdir(dir),
      catch: (e) => e,
    }).pipe(
      Effect.catchAll((e) =>
        codeOf(e) === 'ENOENT' ? Effect.succeed([] as string[]) : Effect.fail(ioError('list', dir)(e)),
      ),
    )
    for (const name of names.filter(isTempOf(path))) {
      yield* Effect.tryPromise({
        try: () => rm(join(dir, name), { force: true }),
        catch: ioError('remove', join(dir, name)),
      })
    }
    const text = yield* Effect.tryPromise({ try: () => readFile(path, 'utf8'), catch: (e) => e }).pipe(
      Effect.catchAll((e) =>
        codeOf(e) === 'ENOENT' ? Effect.succeed(undefined) : Effect.fail(ioError('read', path)(e)),
      ),
    )
    if (text === undefined) return undefined
    return yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: () => new SettingsError({ reason: 'invalid-file', message: `${path} is not valid JSON` }),
    })
  })

/**
 * Writes `text` to `path` crash-safely (temp file + fsync + rename + directory fsync), creating
 * the directory when needed. The file is readable by its owner only.
 *
 * @example
 * yield* writeFileAtomic('/var/lib/errands/settings.json', '{}\n')
 */
export const writeFileAtomic = (path: string, text: string): Effect.Effect<void, SettingsError> => {
  const dir = dirname(path)
  const temp = join(dir, `${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
  return Effect.tryPromise({
    try: async () => {
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const file = await open(temp, 'wx', 0o600)
      try {
        await file.writeFile(text, 'utf8')
        await file.sync()
      } finally {
        await file.close()
      }
      await rename(temp, path)
      const d = await open(dir, 'r')
      try {
        await d.sync()
      } finally {
        await d.close()
      }
    },
    catch: ioError('write', path),
  }).pipe(Effect.tapError(() => Effect.promise(() => rm(temp, { force: true }).catch(() => undefined))))
}
