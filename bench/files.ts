/**
 * What an errand's files cost across a park (issue #25, F3; ADR 0030): park and resume of an
 * errand with no files against the same errand with 1 MiB and 10 MiB (and, with `--large`,
 * 50 MiB) of staged files, sealed inside its record in the file store. Per case: park ms, resume
 * ms (unseal, reopen, files written back, its tab loaded), the sealed record's size on disk, and
 * the engine process's peak RSS over its RSS before the park and before the resume (sampled every
 * 2 ms by a worker thread, which keeps sampling while the main thread is busy encoding). The
 * cases run interleaved, round by round, each round in a rotated order. Times are compared to the
 * errand with no files; bytes to the files' own bytes (the errand with no files needs next to
 * none). The bench checks that every file came back (the supervisor says a lost file in health,
 * never as a failed park).
 *
 * @example
 * rows.push(...(await benchFiles(bench, runtime, store, 3, false)))
 */
import type { RuntimeShape } from '@errands/runtime'
import { ERRANDS_DIR, fileNameFor, type SealedStoreShape } from '@errands/store'
import { randomBytes } from 'node:crypto'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { pause, timed, type Bench } from './common.ts'
import { median, type Row } from './table.ts'

const MiB = 1024 * 1024
/** The largest file staged: a bigger case is several such files, as a folder of downloads is. */
const FILE_MIB = 10

/**
 * The process's peak RSS while `f` runs, sampled by a worker thread (RSS is the whole
 * process's, so a busy main thread is still seen), in bytes over the RSS before it.
 *
 * @example
 * const { ms, peak } = await peakRss(() => park())
 */
const peakRss = async (f: () => Promise<unknown>): Promise<{ readonly ms: number; readonly peak: number }> => {
  // [0] running flag, [1] peak RSS in KiB.
  const shared = new Int32Array(new SharedArrayBuffer(8))
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads')
     const s = new Int32Array(workerData)
     const rssKiB = () => Math.round(process.memoryUsage.rss() / 1024)
     const sample = () => Atomics.store(s, 1, Math.max(Atomics.load(s, 1), rssKiB()))
     Atomics.store(s, 0, 1)
     const t = setInterval(() => { sample(); if (Atomics.load(s, 0) === 2) { clearInterval(t); process.exit(0) } }, 2)`,
    { eval: true, workerData: shared.buffer },
  )
  const exited = new Promise((r) => worker.once('exit', r))
  global.gc?.()
  while (Atomics.load(shared, 0) !== 1) await pause(5)
  const before = process.memoryUsage.rss()
  Atomics.store(shared, 1, Math.round(before / 1024))
  const ms = await timed(f)
  Atomics.store(shared, 0, 2)
  await exited
  return { ms, peak: Math.max(0, Atomics.load(shared, 1) * 1024 - before) }
}

/**
 * Stages `mib` MiB of random (incompressible) bytes into the context's folder, in files of at most {@link FILE_MIB}
 * MiB.
 */
const stageFiles = async (bench: Bench, runtime: RuntimeShape, contextId: string, mib: number) => {
  for (let i = 0, left = mib; left > 0; i++, left -= FILE_MIB) {
    await bench.run(
      runtime.files!.stage(contextId, `download-${i}.bin`, new Uint8Array(randomBytes(Math.min(left, FILE_MIB) * MiB))),
    )
  }
}

/** The bytes the errand's live folder holds. */
const folderBytes = async (bench: Bench, runtime: RuntimeShape, contextId: string) =>
  (await bench.run(runtime.files!.list(contextId))).reduce((sum, f) => sum + f.size, 0)

export const benchFiles = async (
  bench: Bench,
  runtime: RuntimeShape,
  store: SealedStoreShape,
  rounds: number,
  large: boolean,
): Promise<Row[]> => {
  const { supervisor, engine, run, sites } = bench
  if (runtime.files === undefined || store.dir === undefined)
    throw new Error('the files bench needs a runtime with files folders and the file store')
  const sizes = large ? [0, 1, 10, 50] : [0, 1, 10]
  const url = sites[0]!.url('/title?t=files')
  const cases = sizes.map((mib) => ({
    mib,
    id: `bench-files-${mib}`,
    park: [] as number[],
    resume: [] as number[],
    record: [] as number[],
    parkRss: [] as number[],
    resumeRss: [] as number[],
  }))
  // Each errand: one tab on a site, its folder filled once; the files come back with each resume.
  for (const c of cases) {
    const { contextId } = await run(supervisor.open({ id: c.id, kind: 'task' }))
    const [tab] = await run(engine.tabs(contextId))
    await run(engine.navigate(contextId, tab!.id, url))
    await stageFiles(bench, runtime, contextId, c.mib)
  }
  const resumeLoaded = async (c: (typeof cases)[number]) => {
    const { contextId } = await run(supervisor.resume(c.id))
    const [tab] = await run(engine.tabs(contextId))
    await engine.pageOf(contextId, tab!.id)!.waitForLoadState('load')
    return contextId
  }
  const round = async (c: (typeof cases)[number], keep: boolean) => {
    const { ms: park, peak } = await peakRss(() => run(supervisor.park(c.id)))
    const record = statSync(join(store.dir!, ERRANDS_DIR, fileNameFor(c.id))).size
    if (record < c.mib * MiB)
      throw new Error(`errand ${c.id}: its record (${record} bytes) cannot hold its ${c.mib} MiB of files`)
    await pause()
    let contextId = ''
    const { ms: resume, peak: resumePeak } = await peakRss(async () => (contextId = await resumeLoaded(c)))
    const back = await folderBytes(bench, runtime, contextId)
    if (back !== c.mib * MiB) throw new Error(`errand ${c.id}: ${back} bytes of files came back, not ${c.mib * MiB}`)
    if (keep) {
      c.park.push(park)
      c.resume.push(resume)
      c.record.push(record)
      c.parkRss.push(peak)
      c.resumeRss.push(resumePeak)
    }
    await pause()
  }
  // One warm-up round, then the measured ones, the cases interleaved; each round starts with
  // another case, so no case always follows the largest one's garbage.
  for (let i = 0; i <= rounds; i++) {
    for (const c of [...cases.slice(i % cases.length), ...cases.slice(0, i % cases.length)]) await round(c, i > 0)
  }
  for (const c of cases) await run(supervisor.release(c.id))
  const name = (mib: number) =>
    mib === 0 ? 'no files' : `${mib} MiB of files (${Math.ceil(mib / FILE_MIB)} file${mib > FILE_MIB ? 's' : ''})`
  type Case = (typeof cases)[number]
  /** Times: the ratio to the errand with no files. */
  const timeRows = (section: string, pick: (c: Case) => number[]): Row[] =>
    cases.map((c) => ({
      section,
      name: name(c.mib),
      median: median(pick(c)),
      ratio: median(pick(c)) / median(pick(cases[0]!)),
    }))
  /**
   * Bytes: in MiB, the ratio to the files' own bytes (none for the errand with no files, whose value is shown in KiB).
   */
  const byteRows = (section: string, pick: (c: Case) => number[]): Row[] =>
    cases.map((c) =>
      c.mib === 0
        ? { section, name: name(0), median: median(pick(c)) / 1024, ratio: NaN, unit: 'KiB' }
        : {
            section,
            name: name(c.mib),
            median: median(pick(c)) / MiB,
            ratio: median(pick(c)) / (c.mib * MiB),
            unit: 'MiB',
          },
    )
  const about = 'errand with one loaded tab, file store'
  const rss = "host peak RSS over its RSS before, worker-sampled every 2 ms; ratio to the files' bytes"
  return [
    ...timeRows(`files: park (snapshot, pack, seal, write, close; ${about}; ratio to no files)`, (c) => c.park),
    ...timeRows(`files: resume (read, unseal, open, unpack, tab loaded; ${about}; ratio to no files)`, (c) => c.resume),
    ...byteRows("files: sealed record on disk (ratio to the files' bytes)", (c) => c.record),
    ...byteRows(`files: during the park (${rss})`, (c) => c.parkRss),
    ...byteRows(`files: during the resume (${rss})`, (c) => c.resumeRss),
  ]
}
