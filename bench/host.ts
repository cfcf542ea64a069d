/**
 * The host's overhead in the bench's table: `GET /v1/url` through the host against the same
 * question asked of Playwright directly (`page.url()`), 8 sessions in parallel; and
 * `POST /v1/navigate` for the 8 at once from a client process of their own, as agents call
 * (`packages/host/bench/overhead.ts` measures; this only tabulates).
 *
 * @example
 * rows.push(...(await benchHost(100)))
 */
import { measureHostOverhead } from '../packages/host/bench/overhead.ts'
import { median, type Row } from './table.ts'

const SESSIONS = 8
const SECTION = `host: the URL of a session, ${SESSIONS} sessions in parallel (client in the same process)`

export const benchHost = async (rounds: number): Promise<Row[]> => {
  const t = await measureHostOverhead({ sessions: SESSIONS, rounds })
  const direct = median(t.direct)
  const row = (name: string, xs: number[]) => ({ section: SECTION, name, median: median(xs), ratio: NaN })
  return [
    row('Playwright page.url() directly (no round trip)', t.direct),
    row('Playwright page.evaluate(location.href) (one CDP round trip)', t.evaluate),
    row(`GET /v1/url via the host, ${SESSIONS} at once (each call's latency)`, t.viaHost),
    row(
      `  overhead over page.url(), median`,
      t.viaHost.map((x) => x - direct),
    ),
    row(`  the same batch per call (batch time / ${SESSIONS})`, t.viaHostPerCall),
    row('GET /v1/url, one session at a time', t.single),
    row('GET /health (HTTP and checks only)', t.health),
    row(`POST /v1/navigate, ${SESSIONS} at once from another process (each call's latency)`, t.navigate),
    row('POST /v1/navigate, one session at a time from another process', t.navigateSingle),
  ]
}
