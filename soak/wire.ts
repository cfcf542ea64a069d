/**
 * The checks on the wire: every request the fixture sites received is judged by the Cookie
 * header it carried, against the tag the driver put in its URL — never against the engine's own
 * view of things.
 *
 * - a cookie whose value belongs to another session (or to an earlier generation of the same
 *   key, forgotten by "task done") is a **wrong-session cookie**;
 * - the person's bank.example sign-in (`bank=main.*`) on a request sent after a revoke was
 *   acknowledged (and before the next Allow) is a **revoked cookie**;
 * - the same cookie name twice in one header (a restore that made a second cookie beside the
 *   page's own) is a **duplicated cookie**;
 * - its absence on a bank.example request sent after Allow was acknowledged, with nothing having
 *   struck the session since, is a **lent sign-in missing**.
 *
 * @example
 * const checked = checkWire(world) // judges every hit since the last call
 */
import type { World } from './world.ts'

/**
 * Judges the hits received since the last call; returns how many it judged.
 *
 * @example
 * setInterval(() => checkWire(world), 1000)
 */
export const checkWire = (w: World): number => {
  const hits = w.sites.drain()
  for (const hit of hits) {
    w.stats.wireRequests++
    if (hit.tag === undefined) continue // a page's own request (favicon): no owner to judge by
    const owner = hit.tag.split('.')[0]!
    const lent = hit.host === 'bank.example' ? w.lentOf(hit.tag) : undefined
    let sawMain = false
    const names = hit.cookies.map((c) => c.name)
    const twice = names.filter((n, i) => names.indexOf(n) !== i)
    if (twice.length > 0)
      w.violation(
        'cookie-duplicated',
        owner,
        `${hit.host}${hit.path} received cookie ${twice.join(', ')} more than once: ${hit.cookies
          .filter((c) => twice.includes(c.name))
          .map((c) => c.value)
          .join(' | ')}`,
      )
    for (const c of hit.cookies) {
      const valueOwner = c.value.split('.')[0]!
      if (valueOwner === 'main') {
        sawMain = true
        if (owner.startsWith('main~')) continue
        if (lent?.lent === 'no') {
          w.stats.revokedCookies++
          w.violation(
            'revoked-cookie',
            owner,
            `${c.name} of the person's sign-in reached ${hit.host}${hit.path} after the revoke was acknowledged`,
          )
        }
        continue
      }
      if (valueOwner !== owner) {
        w.stats.wrongSessionCookies++
        w.violation('wrong-session-cookie', owner, `cookie ${c.name} of ${valueOwner} reached ${hit.host}${hit.path}`)
      }
    }
    if (hit.host === 'bank.example' && hit.path === '/show' && lent?.lent === 'yes' && lent.certain && !sawMain) {
      w.stats.lentMissing++
      w.violation('lent-missing', owner, `Allow was acknowledged but bank.example${hit.path} got no lent cookie`)
    }
  }
  return hits.length
}
