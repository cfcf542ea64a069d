/**
 * The soak's report: a Markdown table of what was served, survived and found, and one PNG chart
 * of latency, memory and process count over time — drawn by echarts (server-side, to SVG) and
 * turned into a PNG by a screenshot in our Chromium.
 *
 * @example
 * const table = await writeReport(result, '/tmp/soak') // also writes report.md and chart.png
 */
import { resolveExecutable, CHROMIUM_ARGS } from '@errands/runtime-chromium'
import * as echarts from 'echarts'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { percentile } from './heal.ts'
import type { SoakResult } from './run.ts'

const WIDTH = 1200
const HEIGHT = 900

/**
 * The chart's SVG: three stacked panels sharing the time axis (minutes).
 *
 * @example
 * const svg = chartSvg(result)
 */
export const chartSvg = (r: SoakResult): string => {
  const bucketMs = Math.max(10_000, Math.round(r.elapsedMs / 60))
  const buckets = new Map<string, Map<number, number[]>>()
  for (const l of r.latencies) {
    const b = Math.floor(l.t / bucketMs)
    const byPath = buckets.get(l.path) ?? new Map<number, number[]>()
    byPath.set(b, [...(byPath.get(b) ?? []), l.ms])
    buckets.set(l.path, byPath)
  }
  const min = (t: number) => Math.round((t / 60_000) * 100) / 100
  const series95 = (path: string) =>
    [...(buckets.get(path) ?? new Map<number, number[]>()).entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([b, ms]) => [min((b + 0.5) * bucketMs), Math.round(percentile(ms, 95))])
  const heap = r.samples.filter((s) => s.heapMb !== undefined).map((s) => [min(s.t), s.heapMb!])
  const rss = r.samples.filter((s) => s.rssMb !== undefined).map((s) => [min(s.t), s.rssMb!])
  const procs = r.samples.map((s) => [min(s.t), s.chromium])
  const contexts = r.samples.filter((s) => s.contexts !== undefined).map((s) => [min(s.t), s.contexts!])
  const quiet = r.quiets.map((q) => ({ xAxis: min(q.t) }))
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT })
  const grid = (top: number) => ({ left: 70, right: 30, top, height: 200 })
  const axis = (gridIndex: number, name: string) => ({
    gridIndex,
    type: 'value' as const,
    name,
    nameLocation: 'middle' as const,
    nameGap: 50,
  })
  chart.setOption({
    animation: false,
    backgroundColor: '#ffffff',
    title: {
      text:
        `Errands soak — seed ${r.options.seed}, ${r.options.sessions} sessions, cap ${r.options.cap}, ` +
        `${Math.round(r.elapsedMs / 60_000)} min`,
      left: 'center',
      textStyle: { fontSize: 16 },
    },
    legend: {
      top: 36,
      data: [
        '/v1/navigate p95',
        '/v1/text p95',
        'host heap (MB, after GC)',
        'host RSS (MB)',
        'Chromium processes',
        'browser contexts',
      ],
    },
    grid: [grid(90), grid(370), grid(650)],
    xAxis: [0, 1, 2].map((i) => ({
      gridIndex: i,
      type: 'value',
      name: i === 2 ? 'minutes' : '',
      nameLocation: 'middle',
      nameGap: 28,
      min: 0,
      max: Math.ceil(r.elapsedMs / 60_000),
    })),
    yAxis: [axis(0, 'latency (ms)'), axis(1, 'memory (MB)'), axis(2, 'count')],
    series: [
      {
        name: '/v1/navigate p95',
        type: 'line',
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: series95('/v1/navigate'),
        showSymbol: false,
        markLine: {
          symbol: 'none',
          silent: true,
          lineStyle: { color: '#bbb', type: 'dashed' },
          label: { show: false },
          data: quiet,
        },
      },
      {
        name: '/v1/text p95',
        type: 'line',
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: series95('/v1/text'),
        showSymbol: false,
      },
      { name: 'host heap (MB, after GC)', type: 'line', xAxisIndex: 1, yAxisIndex: 1, data: heap, showSymbol: false },
      { name: 'host RSS (MB)', type: 'line', xAxisIndex: 1, yAxisIndex: 1, data: rss, showSymbol: false },
      {
        name: 'Chromium processes',
        type: 'line',
        xAxisIndex: 2,
        yAxisIndex: 2,
        data: procs,
        showSymbol: false,
        step: 'end',
      },
      {
        name: 'browser contexts',
        type: 'line',
        xAxisIndex: 2,
        yAxisIndex: 2,
        data: contexts,
        showSymbol: false,
        step: 'end',
      },
    ],
  })
  const svg = chart.renderToSVGString()
  chart.dispose()
  return svg
}

/**
 * Draws the chart to `<out>/chart.png` through a screenshot of the SVG in Chromium.
 *
 * @example
 * await writeChart(result, '/tmp/soak')
 */
export const writeChart = async (r: SoakResult, out: string): Promise<string> => {
  const svg = chartSvg(r)
  writeFileSync(join(out, 'chart.svg'), svg)
  const browser = await chromium.launch({
    executablePath: resolveExecutable(),
    args: [...CHROMIUM_ARGS],
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  })
  try {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } })
    await page.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`)
    const path = join(out, 'chart.png')
    await page.screenshot({ path, clip: { x: 0, y: 0, width: WIDTH, height: HEIGHT } })
    return path
  } finally {
    await browser.close()
  }
}

const row = (name: string, value: string | number) => `| ${name} | ${value} |\n`

/**
 * The Markdown table of a run.
 *
 * @example
 * process.stdout.write(table(result))
 */
export const table = (r: SoakResult): string => {
  const s = r.stats
  const q0 = r.quiets[0]
  const qn = r.quiets[r.quiets.length - 1]
  const kinds = new Map<string, number>()
  for (const v of r.violations) kinds.set(v.kind, (kinds.get(v.kind) ?? 0) + 1)
  let t = `| figure | value |\n|---|---|\n`
  t += row('seed / sessions / cap', `${r.options.seed} / ${r.options.sessions} / ${r.options.cap}`)
  t += row(
    'run time (asked / measured, with the last resume checks)',
    `${r.options.minutes} / ${Math.round(r.elapsedMs / 60_000)} min`,
  )
  t += row('requests served (HTTP, by the host)', s.requests)
  t += row('requests seen by the fixture sites (wire-checked)', s.wireRequests)
  t += row('sessions (keys × generations)', s.sessions)
  t += row(
    'parks acknowledged / resumed exactly / checked',
    `${s.parksAcked} / ${s.resumesExact} / ${s.resumesChecked}`,
  )
  t += row('parks refused (full disk; errand kept open)', s.parksRefused)
  t += row('exact state checks (no chaos between)', s.checks)
  t += row('heal checks after chaos (own history only)', s.healChecks)
  t += row('lends / revokes', `${s.lends} / ${s.revokes}`)
  t += row('renderer kills / browser SIGKILLs', `${s.rendererKills} / ${s.browserKills}`)
  t += row(
    'host SIGKILLs (during a seal write / temp file still there)',
    `${s.hostKills} (${s.hostKillsMidWrite} mid-write)`,
  )
  t += row(
    'host start (p50 / max, of starts)',
    `${r.hostStartMs.p50} / ${r.hostStartMs.max} ms (${r.hostStartMs.count})`,
  )
  t += row('full-disk periods', r.diskFull ? s.diskFulls : 'off (cannot mount a tmpfs here)')
  t += row('wrong-session cookies on the wire', s.wrongSessionCookies)
  t += row('revoked-site cookies after revocation', s.revokedCookies)
  t += row('quiet periods', s.quietPeriods)
  if (q0 && qn) {
    t += row('Chromium processes, quiet (first → last)', `${q0.chromium} → ${qn.chromium}`)
    t += row('host fds, quiet (first → last)', `${q0.fds} → ${qn.fds}`)
    t += row('temp dirs, quiet (first → last)', `${q0.tempDirs} → ${qn.tempDirs}`)
    t += row('host heap after GC, quiet (first → last)', `${q0.heapMb} → ${qn.heapMb} MB`)
    t += row('host heap after GC, quiet (max)', `${Math.max(...r.quiets.map((q) => q.heapMb ?? 0))} MB`)
  }
  t += row(
    'max browser contexts seen (cap + 1 warm spare allowed)',
    Math.max(0, ...r.samples.map((x) => x.contexts ?? 0)),
  )
  for (const tr of r.trends)
    t += row(
      `${tr.path} p50 / p95, first → last tenth`,
      `${tr.first.p50} / ${tr.first.p95} → ${tr.last.p50} / ${tr.last.p95} ms (${tr.count} calls)`,
    )
  if (r.heal)
    t += row(
      `heal after SIGKILL, 10 live errands (p50 / p95, ${r.heal.times.length} heals)`,
      `${Math.round(r.heal.p50)} / ${Math.round(r.heal.p95)} ms; as they were ${r.heal.asItWas}; failed ` +
        `${r.heal.failed}`,
    )
  t += row(
    'violations (leaks, losses, wrong cookies …)',
    r.violations.length === 0 ? 0 : [...kinds].map(([k, n]) => `${k} ${n}`).join(', '),
  )
  return t
}

/**
 * Writes `report.md` (the table, the violations, the chart) and `chart.png`; returns the table.
 *
 * @example
 * await writeReport(result, out)
 */
export const writeReport = async (r: SoakResult, out: string): Promise<string> => {
  const t = table(r)
  await writeChart(r, out)
  const violations = r.violations
    .slice(0, 50)
    .map((v) => `- ${Math.round(v.t / 1000)} s ${v.kind} ${v.session}: ${v.detail}`)
    .join('\n')
  writeFileSync(
    join(out, 'report.md'),
    `# Soak report\n\n${t}\n${violations ? `## Violations\n\n${violations}\n\n` : ''}![latency, memory and processes ` +
      `over time](chart.png)\n\nJournal: ${r.journal}\n`,
  )
  writeFileSync(
    join(out, 'result.json'),
    JSON.stringify({ ...r, latencies: undefined, samples: r.samples.length }, null, 2),
  )
  return t
}
