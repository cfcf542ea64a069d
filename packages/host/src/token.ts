/**
 * The person's bearer token (B7): 32 random bytes as hex in `<dataDir>/host-token`, created
 * 0600 at first start and read on every later one. Whoever can read that file acts as the
 * person; a session key never does.
 *
 * @example
 * const token = yield* loadToken('/var/lib/errands') // Redacted<string>
 */
import { Effect, Redacted } from 'effect'
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { HostStartError } from './errors.ts'

/** The token file's name inside the data directory. @example path.join(dataDir, TOKEN_FILE) */
export const TOKEN_FILE = 'host-token'

const TOKEN = /^[0-9a-f]{64}$/

/**
 * Reads the token, creating the file (0600, exclusively) when it does not exist. A file with
 * other content is refused rather than overwritten — the person may have put it there.
 *
 * @example
 * const token = yield* loadToken(dataDir)
 */
export const loadToken = (dataDir: string): Effect.Effect<Redacted.Redacted<string>, HostStartError> =>
  Effect.try({
    try: () => {
      fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      const file = path.join(dataDir, TOKEN_FILE)
      try {
        fs.writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      // Whoever made it, it is the person's secret: owner-only.
      if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600)
      const token = fs.readFileSync(file, 'utf8').trim()
      if (!TOKEN.test(token))
        throw new Error(`${file} does not hold a host token (64 hex characters); move it away and start again`)
      return Redacted.make(token)
    },
    catch: (error) =>
      new HostStartError({
        reason: 'data-dir',
        message: `Could not read or create the host token in ${dataDir}: ${(error as Error).message}`,
      }),
  })
