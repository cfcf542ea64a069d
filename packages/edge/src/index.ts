/**
 * `@errands/edge`: the HTTP edge every Errands front stands behind (issue #24) — one set of HTTP
 * refusals whose status is part of their schema, the B7 checks (Host, Origin, JSON only, method),
 * a size-limited body reader, bearer tokens compared in constant time, and one error renderer for
 * web responses, Node responses and raw sockets (WebSocket upgrades). See docs/edge.md.
 *
 * @example
 * const refusal = admit(headers, { port })
 * if (refusal) return errorResponse(refusal)
 */
export * from './access.ts'
export * from './bearer.ts'
export * from './body.ts'
export {
  checkMediaType,
  checkMethod,
  hasBody,
  type HeadersLike,
  type Identity,
  isOwnHost,
  nodeHeaders,
  type OriginRule,
  ownHost,
  ownOrigin,
} from './checks.ts'
export * from './errors.ts'
export * from './render.ts'
export * from './localPeer.ts'
export * from './config.ts'
export * from './decode.ts'
export * from './fronts.ts'
export * from './endpoint.ts'
export * from './router.ts'
export * from './openapi.ts'
