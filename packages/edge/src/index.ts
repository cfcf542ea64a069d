/**
 * `@errands/edge`: the HTTP edge every Errands front stands behind (issue #24) — one set of HTTP
 * refusals whose status is part of their schema, the B7 checks (Host, Origin, JSON only, method),
 * a size-limited body reader, bearer tokens compared in constant time, and one error renderer for
 * web responses, Node responses and raw sockets (WebSocket upgrades). See docs/edge.md.
 *
 * @example
 * const refusal = checkHost(headers, { port }) ?? checkOrigin(headers, { port })
 * if (refusal) return errorResponse(refusal)
 */
export * from './bearer.ts'
export * from './body.ts'
export * from './checks.ts'
export * from './errors.ts'
export * from './render.ts'
export * from './localPeer.ts'
