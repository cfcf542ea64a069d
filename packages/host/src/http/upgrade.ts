/**
 * WebSocket upgrades the host takes no part in: the DevTools endpoint (`/devtools/<token>`) and
 * the live view (`/live/socket`) take their own; any other path is answered in HTTP by the edge —
 * a foreign Host or Origin with the same 421 / 403 as every request, else `UpgradeRefused` (400) —
 * instead of a silent reset.
 *
 * @example
 * server.on('upgrade', (req, socket, head) => devtools.upgrade(req, socket, head) || refuseOtherUpgrade(req, socket, {
 * port }))
 */
import { admit, nodeHeaders, refuseUpgrade, UpgradeRefused, type Identity } from '@errands/edge'
import type * as http from 'node:http'
import type { Duplex } from 'node:stream'

/**
 * Refuses an upgrade no front of the host takes, with the edge's JSON error.
 *
 * @example
 * refuseOtherUpgrade(req, socket, { port: 7777 })
 */
export const refuseOtherUpgrade = (req: http.IncomingMessage, socket: Duplex, identity: Identity): void => {
  const headers = nodeHeaders(req.headers)
  refuseUpgrade(
    socket,
    admit(headers, identity) ??
      new UpgradeRefused({
        reason: 'no-websocket',
        message:
          `${(req.url ?? '/').split('?')[0]!.slice(0, 200)} takes no WebSocket; the host's WebSockets are ` +
          `/devtools/<token> (GET /v1/session/devtools) and /live/socket.`,
      }),
  )
}
