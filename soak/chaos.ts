/**
 * The chaos loop: at seeded random moments (every kind once per round, chaosSchedule) it kills a renderer of the
 * errands' browser, SIGKILLs
 * the errands' Chromium, SIGKILLs the host while it seals a record (watching the store's folder
 * for the record's temp file, inotify) and restarts it on the same data dir, or fills the store's
 * disk (a real tmpfs, when mounting is allowed) for a while.
 *
 * @example
 * await chaosLoop(world, prng(seed ^ 0xc4a05), { diskFull: mounted })
 */
import { existsSync, readdirSync, rmSync, watch } from 'node:fs'
import { join } from 'node:path'
import { fillDisk } from '../test/fixtures/fillDisk.ts'
import type { World } from './world.ts'

/** What the loop may do. */
export interface ChaosOptions {
  /** The store is on a tmpfs of its own that may be filled. */
  readonly diskFull: boolean
  /** How long a full disk lasts. */
  readonly diskFullMs: number
}

const storeDir = (w: World) => join(w.dataDir, 'store')
const errandsDir = (w: World) => join(storeDir(w), 'errands')
const temps = (w: World) => {
  try {
    return readdirSync(errandsDir(w)).filter((n) => n.endsWith('.tmp'))
  } catch {
    return []
  }
}

/**
 * SIGKILLs the host at the moment a sealed record's temp file appears (the seal is under way),
 * or after `giveUpMs` without one; restarts it. Returns whether the kill landed inside a write
 * (the temp file was still there after the kill) and the restart time.
 *
 * @example
 * const { midWrite, restartMs } = await killHostDuringSeal(world)
 */
export const killHostDuringSeal = async (
  w: World,
  giveUpMs = 30_000,
): Promise<{ sealing: boolean; midWrite: boolean; restartMs: number }> => {
  let sealing = false
  await new Promise<void>((resolve) => {
    let done = false
    const finish = () => {
      if (done) return
      done = true
      watcher.close()
      clearTimeout(timer)
      resolve()
    }
    const watcher = watch(storeDir(w), { recursive: true }, (_event, name) => {
      if (done || name === null || !String(name).endsWith('.tmp') || !String(name).includes('errands')) return
      sealing = true
      // Killed from inside the watcher's callback, before anything else runs here.
      void w.killHost()
      finish()
    })
    const timer = setTimeout(() => {
      void w.killHost()
      finish()
    }, giveUpMs)
  })
  await w.host?.exited
  const midWrite = temps(w).length > 0
  w.stats.hostKills++
  if (midWrite) w.stats.hostKillsMidWrite++
  w.chaos('host-kill', { sealing, midWrite })
  const started = performance.now()
  await w.restart()
  return { sealing, midWrite, restartMs: performance.now() - started }
}

/** SIGKILLs one process of the errands' browser; false when it had exited first. */
const kill = (w: World, pid: number, what: 'renderer-kill' | 'browser-kill'): boolean => {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    return false
  }
  w.chaos(what, { pid })
  return true
}

/** What the chaos loop does. */
export type ChaosKind = 'renderer-kill' | 'browser-kill' | 'host-kill' | 'disk-full'

/**
 * The order of chaos events: every kind once per round (so a short run meets each), the first
 * round in a fixed order, later rounds shuffled by `random`; renderer kills twice per round.
 *
 * @example
 * const next = chaosSchedule(random, true); next() // 'renderer-kill'
 */
export const chaosSchedule = (random: () => number, diskFull: boolean) => {
  const kinds: ChaosKind[] = [
    'renderer-kill',
    'browser-kill',
    'host-kill',
    ...(diskFull ? ['disk-full' as const] : []),
    'renderer-kill',
  ]
  let round: ChaosKind[] = [...kinds]
  return (): ChaosKind => {
    if (round.length === 0) {
      round = [...kinds]
      for (let i = round.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1))
        ;[round[i], round[j]] = [round[j]!, round[i]!]
      }
    }
    return round.shift()!
  }
}

/**
 * One chaos event of the given kind.
 *
 * @example
 * await chaosOnce(world, 'browser-kill', random, options)
 */
export const chaosOnce = async (w: World, kind: ChaosKind, random: () => number, o: ChaosOptions): Promise<string> => {
  if (kind === 'renderer-kill') {
    const renderers = w.probe.errandRenderers()
    if (renderers.length === 0) return 'renderer-kill (none running)'
    if (!kill(w, renderers[Math.floor(random() * renderers.length)]!, 'renderer-kill'))
      return 'renderer-kill (exited first)'
    w.stats.rendererKills++
    return 'renderer-kill'
  }
  if (kind === 'browser-kill') {
    const pid = w.probe.chromium().errandsBrowser
    if (pid === undefined) return 'browser-kill (not running)'
    if (!kill(w, pid, 'browser-kill')) return 'browser-kill (exited first)'
    w.stats.browserKills++
    return 'browser-kill'
  }
  if (kind === 'host-kill' || !o.diskFull) {
    const { sealing, midWrite, restartMs } = await killHostDuringSeal(w)
    return `host-kill (sealing ${sealing}, mid-write ${midWrite}, restarted in ${Math.round(restartMs)} ms)`
  }
  fillDisk(storeDir(w))
  w.stats.diskFulls++
  w.journal.write({ kind: 'chaos', what: 'disk-full' })
  await new Promise((resolve) => setTimeout(resolve, o.diskFullMs))
  rmSync(join(storeDir(w), 'filler'), { force: true })
  w.journal.write({ kind: 'chaos', what: 'disk-room' })
  return 'disk-full'
}

/**
 * Whether a leftover temp file of a killed write is still in the store (the restarted host should clean it). @example
 * leftoverTemps(world)
 */
export const leftoverTemps = (w: World): number => (existsSync(errandsDir(w)) ? temps(w).length : 0)
