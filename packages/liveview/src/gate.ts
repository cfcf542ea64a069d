/**
 * Who the live view answers, through `@errands/edge` (B7, X4): every request and every socket
 * upgrade is judged before anything runs — the Host must be the host's own (DNS rebinding, 421);
 * a request that changes something, and every socket, must carry the host's own Origin, and a read
 * must not come from another site (403); a body must be JSON (415). The socket also needs a
 * sign-in (401, `auth.ts`).
 *
 * @example
 * const refusal = requestRefusal(req, { port })
 * if (refusal) return sendError(res, refusal)
 */
import { admit, checkMediaType, hasBody, nodeHeaders, Unauthorized, type EdgeError, type Identity } from '@errands/edge'
import type * as http from 'node:http'
import { socketIdOf, type LiveAuth } from './auth.ts'

/**
 * Why the live view refuses a request before routing it, or `undefined`.
 *
 * @example
 * requestRefusal(req, { port: 7777 }) // WrongHost for Host: evil.example:7777
 */
export const requestRefusal = (req: http.IncomingMessage, identity: Identity): EdgeError | undefined => {
  const headers = nodeHeaders(req.headers)
  const method = req.method ?? 'GET'
  const changes = method !== 'GET' && method !== 'HEAD'
  const withBody = hasBody(headers)
  return (
    admit(headers, identity, { origin: { required: changes } }) ??
    (changes && (withBody || headers.get('content-type') !== null) ? checkMediaType(headers, withBody) : undefined)
  )
}

/**
 * Why the live view refuses its socket's upgrade, or `undefined`.
 *
 * @example
 * upgradeRefusal(req, { port: 7777 }, auth) // Unauthorized without a sign-in id
 */
export const upgradeRefusal = (
  req: http.IncomingMessage,
  identity: Identity,
  auth: LiveAuth,
): EdgeError | undefined => {
  const headers = nodeHeaders(req.headers)
  const refusal = admit(headers, identity, { origin: { required: true } })
  if (refusal) return refusal
  const id = socketIdOf(req.headers)
  if (auth.isSignedIn(id)) return undefined
  return id === undefined
    ? new Unauthorized({
        reason: 'missing-token',
        message: 'Sign in to the live view first; the socket offers the sign-in id as its second subprotocol.',
      })
    : new Unauthorized({
        reason: 'wrong-token',
        message: "This sign-in is not known (the host restarted?); sign in again with the host's token.",
      })
}

/**
 * Why a live-view API call is refused for want of a sign-in, or `undefined`.
 *
 * @example
 * signInRefusal(auth, liveIdOf(req.headers))
 */
export const signInRefusal = (auth: LiveAuth, id: string | undefined): Unauthorized | undefined => {
  if (auth.isSignedIn(id)) return undefined
  return id === undefined || id === ''
    ? new Unauthorized({ reason: 'missing-token', message: "Sign in to the live view with the host's token first." })
    : new Unauthorized({
        reason: 'wrong-token',
        message: "This sign-in is not known (the host restarted?); sign in again with the host's token.",
      })
}
