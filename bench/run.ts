/**
 * `npm run bench [-- sections…] [--rounds N]` — side-by-side measurements, printed as a table of
 * medians and ratios. Each comparison runs its sides interleaved in one process, on one machine,
 * so the ratio holds even when the machine is noisy. Sections: open, forty, resume, heal, memory, reads,
 * spare, supervisor, host, devtools, store, files, frozen, passwords (all by default), and breakdown (the open
 * path step by step, on request).
 * `--large` adds the 50 MiB case to files.
 *
 * @example
 * npm run bench -- resume --rounds 9
 * npm run bench -- files --rounds 3 --large
 */
import { resolveExecutable } from '@errands/runtime-chromium'
import { execFileSync } from 'node:child_process'
import { closeSites, serveSites } from '../test/fixtures/sites.ts'
import { benchBreakdown } from './breakdown.ts'
import { benchDevtools } from './devtools.ts'
import { benchFiles } from './files.ts'
import { loadNow, startBench } from './common.ts'
import { benchForty } from './forty.ts'
import { benchFrozen } from './frozen.ts'
import { benchHeal } from './heal.ts'
import { benchHost } from './host.ts'
import { benchMemory } from './memory.ts'
import { benchOpen } from './open.ts'
import { benchPasswords } from './passwords.ts'
import { benchReads } from './reads.ts'
import { benchResume } from './resume.ts'
import { benchResumeIndexedDb } from './resumeIndexedDb.ts'
import { benchSpare } from './spare.ts'
import { benchStore } from './store.ts'
import { benchSupervisor } from './supervisor.ts'
import { printTable, type Row } from './table.ts'

const ALL = [
  'open',
  'forty',
  'resume',
  'heal',
  'memory',
  'reads',
  'spare',
  'supervisor',
  'host',
  'devtools',
  'store',
  'files',
  'frozen',
  'passwords',
]
const args = process.argv.slice(2)
const roundsAt = args.indexOf('--rounds')
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 7
const wanted = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--rounds')
const large = args.includes('--large')
const sections = wanted.length > 0 ? wanted : ALL
const unknown = sections.filter((s) => ![...ALL, 'breakdown'].includes(s))
if (unknown.length > 0)
  throw new Error(`unknown bench sections: ${unknown.join(', ')} (known: ${[...ALL, 'breakdown'].join(', ')})`)
// The slow sections (tens of seconds a round) run fewer rounds.
const fewer = Math.max(2, Math.ceil(rounds / 2))

const rows: Row[] = []
/** Runs `f` with `n` fixture sites of its own, closed after. */
const withSites = async <A>(
  n: number,
  f: (sites: Awaited<ReturnType<typeof serveSites>>) => Promise<A>,
): Promise<A> => {
  const sites = await serveSites(n)
  try {
    return await f(sites)
  } finally {
    await closeSites(sites)
  }
}
const loads: string[] = [`start ${loadNow()}`]
const section = async (name: string, f: () => Promise<Row[]>) => {
  if (!sections.includes(name)) return
  const started = performance.now()
  rows.push(...(await f()))
  loads.push(`${name} ${loadNow()}`)
  console.error(`bench: ${name} done in ${((performance.now() - started) / 1000).toFixed(0)} s (load ${loadNow()})`)
}

const engineSections = ['open', 'forty', 'resume', 'heal', 'memory', 'reads', 'files', 'breakdown']
if (sections.some((s) => engineSections.includes(s))) {
  const sites = await serveSites(3)
  const { bench, services, dispose } = await startBench(sites, rounds)
  try {
    await section('open', async () => {
      // The same open path without the warm spare context, in an engine of its own.
      const cold = await startBench(sites, rounds, false)
      // And with the egress off (issue #21: what the one door costs), in an engine of its own too.
      const direct = await startBench(sites, rounds, true, [], false)
      try {
        return await benchOpen(bench, cold.bench, direct.bench)
      } finally {
        await cold.dispose()
        await direct.dispose()
      }
    })
    await section('breakdown', () => benchBreakdown(bench, services))
    await section('forty', async () => {
      const direct = await startBench(sites, rounds, true, [], false)
      try {
        return await benchForty(bench, fewer, direct.bench)
      } finally {
        await direct.dispose()
      }
    })
    await section('resume', async () => [...(await benchResume(bench)), ...(await benchResumeIndexedDb(bench))])
    await section('heal', () => benchHeal(bench, fewer))
    await section('memory', () => benchMemory(bench, 3))
    await section('reads', () => withSites(20, (many) => benchReads(bench, many)))
    await section('files', () => benchFiles(bench, services.runtime, services.store, fewer, large))
  } finally {
    await dispose()
    await closeSites(sites)
  }
}
// Two engines of its own (the spare renderer off and on), so no shared engine idles beside them.
// An engine of its own whose idle limits are milliseconds, so errands freeze between rounds.
await section('frozen', () => withSites(3, (sites) => benchFrozen(sites, rounds * 3)))
await section('passwords', () => benchPasswords(rounds * 3))
await section('spare', () => withSites(3, (sites) => benchSpare(sites, fewer)))
await section('supervisor', () => benchSupervisor())
await section('host', () => benchHost(100))
await section('devtools', () => benchDevtools(rounds * 3))
await section('store', () => benchStore(rounds * 10))

const version = (bin: string) => {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()
  } catch {
    return bin
  }
}
printTable(rows, {
  rounds: `${rounds} (forty, heal, files: ${fewer}; memory: 3)`,
  node: process.version,
  chromium: version(resolveExecutable()),
})
console.log(`load averages (1, 5, 15 min) after each section: ${loads.join('; ')}\n`)
