/**
 * Optional agent credentials (X2, B1): with `ERRANDS_AGENT_TOKENS_FILE` set, every session call —
 * the `session` routes of `/v1`, `/v1/session/devtools`, and MCP's `initialize` with an
 * `X-Browser-Session` key — needs `Authorization: Bearer <token>`, and the token must cover the
 * key. An MCP `initialize` without a key opens an errand too: it needs a valid token (any). A
 * session key stays an isolation key; the token is the authority to use it, scoped like a
 * hosted browser's restricted API keys. Unset: today's local behaviour (the key alone).
 *
 * The file, one grant per line (`#` starts a comment, blank lines are skipped):
 *
 * ```
 * # token                                     keys it covers
 * 3f9c…(at least 32 characters)              team-a:*
 * 3f9c…                                      nightly-report
 * 77ab…                                      *
 * ```
 *
 * A pattern is a key (exactly that key), a key prefix ending in `*` (every key that starts with
 * it), or `*` (every key). A token may have several lines. Tokens are kept only as SHA-256
 * digests and a presented one is compared with `timingSafeEqual` against **every** entry (no early
 * exit), so the answer's time does not tell how much of a guess was right. Neither the file's
 * content nor a presented token is ever logged: a bad line is named by its number only.
 *
 * @example
 * const tokens = yield* loadAgentTokens('/etc/errands/agent-tokens')
 * checkAgentToken(tokens, request.headers, key) // undefined, or Unauthorized (401)
 */
import { bearerOf, digestOf, type HeadersLike } from '@errands/edge'
import { Effect } from 'effect'
import { timingSafeEqual } from 'node:crypto'
import * as fs from 'node:fs'
import { HostStartError, Unauthorized } from '../errors.ts'

/** The shortest token accepted (a token is a secret: guessable ones are refused at start). */
export const MIN_AGENT_TOKEN_LENGTH = 32

const TOKEN = /^[A-Za-z0-9._~+/=-]+$/
const PATTERN = /^(\*|[A-Za-z0-9._:-]{1,128}\*?)$/

interface Grant {
  readonly digest: Buffer
  readonly pattern: string
}

/** The grants of the agent-tokens file (digests only; opaque outside this module). */
export interface AgentTokens {
  readonly grants: ReadonlyArray<Grant>
}

/** Whether `pattern` covers `key`. @example covers('team-a:*', 'team-a:k1') // true */
export const covers = (pattern: string, key: string): boolean =>
  pattern === '*' ? true : pattern.endsWith('*') ? key.startsWith(pattern.slice(0, -1)) : key === pattern

/**
 * The grants in a file's text, or the number of the first line that is not `<token> <pattern>`.
 *
 * @example
 * parseAgentTokens(`${'a'.repeat(32)} team-a:*`) // { grants: [ … ] }
 */
export const parseAgentTokens = (text: string): AgentTokens | { readonly badLine: number } => {
  const grants: Array<Grant> = []
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/#.*$/, '').trim()
    if (line === '') continue
    const parts = line.split(/\s+/)
    const [token, pattern] = parts
    if (parts.length !== 2 || token === undefined || pattern === undefined) return { badLine: i + 1 }
    if (token.length < MIN_AGENT_TOKEN_LENGTH || !TOKEN.test(token) || !PATTERN.test(pattern)) return { badLine: i + 1 }
    grants.push({ digest: digestOf(token), pattern })
  }
  return { grants }
}

/**
 * Reads the file at start-up; a missing, unreadable, empty or malformed file stops the host
 * (an operator who set the variable meant to require tokens — running without would be open).
 *
 * @example
 * const tokens = yield* loadAgentTokens(settings.agentTokensFile)
 */
export const loadAgentTokens = (file: string): Effect.Effect<AgentTokens, HostStartError> =>
  Effect.try({
    try: () => fs.readFileSync(file, 'utf8'),
    catch: (e) =>
      new HostStartError({
        reason: 'agent-tokens',
        message: `ERRANDS_AGENT_TOKENS_FILE: could not read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'}).`,
      }),
  }).pipe(
    Effect.flatMap((text) => {
      const parsed = parseAgentTokens(text)
      if ('badLine' in parsed) {
        return Effect.fail(
          new HostStartError({
            reason: 'agent-tokens',
            message:
              `ERRANDS_AGENT_TOKENS_FILE: line ${parsed.badLine} of ${file} is not "<token of ` +
              `${MIN_AGENT_TOKEN_LENGTH}+ characters> <key, key prefix ending in *, or *>".`,
          }),
        )
      }
      if (parsed.grants.length === 0) {
        return Effect.fail(
          new HostStartError({
            reason: 'agent-tokens',
            message:
              `ERRANDS_AGENT_TOKENS_FILE: ${file} grants nothing; add "<token> <pattern>" lines or unset the ` +
              `variable.`,
          }),
        )
      }
      return Effect.succeed(parsed)
    }),
  )

/**
 * Checks the `Authorization` header of a session call against the grants: `undefined` when a
 * presented token covers `key`, else the 401 to answer — before anything runs. `key` undefined is
 * an MCP session that names no key (its errand's key is made up, `mcp~…`, and no pattern names
 * it): any valid token opens one. Without a token it opens none, so an anonymous session cannot
 * take a slot from the token holders (X2).
 *
 * @example
 * checkAgentToken(tokens, new Headers({ authorization: 'Bearer …' }), 'team-a:k1')
 * checkAgentToken(tokens, new Headers({ authorization: 'Bearer …' }), undefined) // any valid token
 */
export const checkAgentToken = (
  tokens: AgentTokens,
  headers: HeadersLike,
  key: string | undefined,
): Unauthorized | undefined => {
  const auth = headers.get('authorization')
  if (auth === null) {
    return new Unauthorized({
      reason: 'missing-token',
      message:
        'This host requires an agent token for session calls: send Authorization: Bearer <token> (ask the host ' +
        'operator for one that covers your session keys).',
    })
  }
  const token = bearerOf(auth)
  const given = digestOf(token ?? '')
  let allowed = false
  // Every grant is compared, whatever matched earlier: the time does not depend on the token.
  for (const grant of tokens.grants) {
    const same = timingSafeEqual(given, grant.digest)
    allowed = (same && (key === undefined || covers(grant.pattern, key))) || allowed
  }
  if (token !== undefined && allowed) return undefined
  return new Unauthorized({
    reason: 'wrong-token',
    message:
      'The agent token is not valid for this session key; use a key your token covers, or ask the host operator for ' +
      'a token that covers it.',
  })
}
