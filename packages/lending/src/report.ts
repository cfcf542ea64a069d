/**
 * Reports and log lines of take-backs: names and sites only (L7).
 *
 * @example
 * takeBackLine('revoked', { conversationId: 't1', where: 'parked', cookies: ['sid@shop.example'], origins: [] })
 * // 'revoked: took back from errand t1 (parked): cookies sid@shop.example'
 */
import type { Moved } from './moves.ts'

/**
 * Merges moves of the same errand and place (two passes of a take-back), dropping empty ones;
 * sorted by conversation, then place.
 *
 * @example
 * mergeMoves([a, b]) // one entry per (conversationId, where) that moved something
 */
export const mergeMoves = (moves: ReadonlyArray<Moved>): ReadonlyArray<Moved> => {
  const byKey = new Map<
    string,
    { conversationId: string; where: Moved['where']; cookies: Set<string>; origins: Set<string> }
  >()
  for (const m of moves) {
    const key = `${m.conversationId}\u0000${m.where}`
    const into = byKey.get(key) ?? {
      conversationId: m.conversationId,
      where: m.where,
      cookies: new Set<string>(),
      origins: new Set<string>(),
    }
    for (const c of m.cookies) into.cookies.add(c)
    for (const o of m.origins) into.origins.add(o)
    byKey.set(key, into)
  }
  return [...byKey.values()]
    .filter((m) => m.cookies.size > 0 || m.origins.size > 0)
    .map((m) => ({
      conversationId: m.conversationId,
      where: m.where,
      cookies: [...m.cookies].sort(),
      origins: [...m.origins].sort(),
    }))
    .sort((a, b) =>
      a.conversationId === b.conversationId
        ? a.where < b.where
          ? -1
          : 1
        : a.conversationId < b.conversationId
          ? -1
          : 1,
    )
}

/**
 * One log line for one errand's take-back.
 *
 * @example
 * takeBackLine('signed out of every site', move)
 */
export const takeBackLine = (why: string, m: Moved): string =>
  `${why}: took back from errand ${m.conversationId} (${m.where}): cookies ${m.cookies.join(', ') || '(none)'}${
    m.origins.length > 0 ? `; localStorage of ${m.origins.join(', ')}` : ''
  }`
