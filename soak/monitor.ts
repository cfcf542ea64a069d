/**
 * The monitor: samples the OS every couple of seconds (Chromium processes, the host's open file
 * descriptors, temp dirs, the errands' browser's contexts over CDP, the host's heap over IPC) and
 * runs the quiet periods: the sessions stop, every open one is parked, and processes, descriptors
 * and temp dirs must come back to the first quiet period's baseline within a settle time.
 *
 * @example
 * const monitor = startMonitor(world)
 * await quietPeriod(world, monitor)
 * monitor.stop()
 */
import { eventually } from '../test/fixtures/processes.ts'
import { dropIdleSockets } from './host.ts'
import type { World } from './world.ts'

/** One sample. */
export interface Sample {
  readonly t: number
  readonly chromium: number
  readonly renderers: number
  /** Of those, the errands' browser's. */
  readonly errandRenderers: number
  /** Chromium processes by kind (see `ChromiumCount.kinds`). */
  readonly kinds: Readonly<Record<string, number>>
  readonly fds: number
  readonly tempDirs: number
  readonly contexts: number | undefined
  readonly heapMb: number | undefined
  readonly rssMb: number | undefined
}

/** One quiet period's settled figures. */
export interface Quiet extends Sample {
  readonly settledMs: number
  readonly open: number
  readonly parked: number
}

/** The kinds `now` has more of than `base`: `renderer +1, utility:storage.mojom.StorageService +1`. */
const kindsAbove = (now: Readonly<Record<string, number>>, base: Readonly<Record<string, number>>) =>
  Object.entries(now)
    .filter(([k, n]) => n > (base[k] ?? 0))
    .map(([k, n]) => `${k} +${n - (base[k] ?? 0)}`)
    .join(', ') || 'none by kind'

const mb = (bytes: number | undefined) => (bytes === undefined ? undefined : Math.round((bytes / 1048576) * 10) / 10)

const sample = async (w: World, withHeap: boolean): Promise<Sample> => {
  const host = w.host
  const c = w.probe.chromium()
  const heap = withHeap && host ? await host.heap() : undefined
  return {
    t: w.elapsed(),
    chromium: c.total,
    kinds: c.kinds,
    renderers: c.renderers.length,
    errandRenderers: c.errandRenderers.length,
    fds: host ? w.probe.fds(host.pid) : -1,
    tempDirs: w.probe.tempDirs(),
    contexts: await w.probe.contexts(),
    heapMb: mb(heap?.heapUsed),
    rssMb: mb(heap?.rss),
  }
}

/**
 * Samples every `everyMs`; a context count above the cap (plus the one warm spare) is a violation.
 *
 * @example
 * const m = startMonitor(world); m.samples.length
 */
export const startMonitor = (w: World, everyMs = 2_000) => {
  const samples: Sample[] = []
  let n = 0
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const s = await sample(w, n++ % 5 === 0)
      samples.push(s)
      if (s.contexts !== undefined && s.contexts > w.spec.options.cap + 1) {
        const detail = await w.probe.contextDetail()
        const health = await w.call(undefined, 'GET', '/health')
        w.violation(
          'contexts-over-cap',
          '-',
          `${s.contexts} browser contexts open with a cap of ${w.spec.options.cap} (+1 warm spare); host says open ` +
            `${health.body?.open}; pages ${JSON.stringify(detail)}`,
        )
      }
      await new Promise((r) => setTimeout(r, everyMs))
    }
  })()
  return {
    samples,
    stop: async () => {
      stopped = true
      await loop
    },
  }
}

/** A started monitor. */
export type Monitor = ReturnType<typeof startMonitor>

/**
 * A quiet period: the gate closes, the person lends a site to two errands, every session is parked
 * (acknowledged parks, checked when the sessions resume), the person revokes the site, then the OS figures must settle
 * at or under the baseline (the first quiet
 * period's) within `settleMs`. Returns the settled figures.
 *
 * @example
 * const quiet = await quietPeriod(world, quiets, random)
 */
/**
 * Chromium processes of a sample, less the warm spare's renderer. The runtime keeps one fresh
 * context ready in the errands' browser (a blank page whose renderer runs); whether it is there at
 * a given moment depends on when the last errand opened, so a quiet period with it and one without
 * differ by one renderer that is no leak. At most one renderer, and only one the errands' browser
 * has a context for, is set aside: a renderer beyond that (or one of no context) still counts.
 *
 * @example
 * comparable(last) <= comparable(base)
 */
const comparable = (s: Sample): number => s.chromium - Math.min(s.errandRenderers, s.contexts ?? 0, 1)

export const quietPeriod = async (
  w: World,
  quiets: Quiet[],
  random: () => number,
  settleMs = 30_000,
): Promise<Quiet> => {
  await w.quiet()
  // The person lends bank.example to two open errands, and revokes it once all are parked: every
  // quiet period exercises Allow into an open errand and a take-back from sealed records (L2, L5).
  for (let i = 0; i < 2; i++) await w.lend(w.sessions[Math.floor(random() * w.sessions.length)]!)
  for (const s of w.sessions) {
    if (s.parkedAcked) continue
    const r = await w.call(s.key, 'POST', '/v1/session/task', { status: 'interrupted' })
    if (r.status === 200 && r.body.lifecycle === 'parked' && !s.uncertain) {
      s.parkedAcked = true
      w.stats.parksAcked++
    }
  }
  await w.revoke()
  dropIdleSockets()
  const started = Date.now()
  const base = quiets[0]
  let last = await sample(w, false)
  const settled = await eventually(
    async () => {
      last = await sample(w, false)
      return (
        base === undefined ||
        (comparable(last) <= comparable(base) && last.tempDirs <= base.tempDirs && last.fds <= base.fds + 8)
      )
    },
    base === undefined ? 3_000 : settleMs,
    250,
  )
  const withHeap = await sample(w, true)
  const health = await w.call(undefined, 'GET', '/health')
  const quiet: Quiet = {
    ...withHeap,
    settledMs: Date.now() - started,
    open: Number(health.body?.open ?? -1),
    parked: Number(health.body?.parked ?? -1),
  }
  if (base !== undefined && !settled) {
    // Processes are only comparable with the same errands open: a park refused by a full disk
    // keeps an errand open with its renderers, which is no leak (the journal still has the figure).
    if (comparable(last) > comparable(base) && quiet.open <= base.open) {
      // Where the extra process is: the errands' browser's renderers and pages, or the person's.
      w.violation(
        'leak-processes',
        '-',
        `${last.chromium} Chromium processes after ${settleMs} ms quiet with ${quiet.open} errands open, baseline ` +
          `${base.chromium} with ${base.open} (more: ${kindsAbove(last.kinds, base.kinds)}; renderers of the ` +
          `errands' browser ${last.errandRenderers}, baseline ${base.errandRenderers}; ` +
          `its pages ${JSON.stringify(await w.probe.contextDetail())})`,
      )
    } else if (comparable(last) > comparable(base))
      w.journal.write({
        kind: 'quiet-not-comparable',
        chromium: last.chromium,
        open: quiet.open,
        baseChromium: base.chromium,
        baseOpen: base.open,
      })
    if (last.tempDirs > base.tempDirs)
      w.violation(
        'leak-temp-dirs',
        '-',
        `${last.tempDirs} temp dirs after ${settleMs} ms quiet, baseline ${base.tempDirs}`,
      )
    if (last.fds > base.fds + 8)
      w.violation('leak-fds', '-', `${last.fds} host fds after ${settleMs} ms quiet, baseline ${base.fds}`)
  }
  quiets.push(quiet)
  w.stats.quietPeriods++
  w.journal.write({ kind: 'quiet', ...quiet })
  w.reopen()
  return quiet
}
