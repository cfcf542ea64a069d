/**
 * The seal-kill loop (S4): the real host process, SIGKILLed while it seals a record, a thousand
 * times. Each cycle starts the host on the same data dir and checks two sessions:
 *
 * - `acked`: parked with an acknowledged park in the previous cycle — must resume **exactly**;
 * - `killed`: its park was cut by the kill — must resume as its previous acknowledged version or
 *   as the new one, nothing else (a torn or mixed record accepted would show here);
 *
 * then changes both (a new sign-in cookie and localStorage value), parks `acked` and waits for
 * the acknowledgement, and parks `killed` — and the kill lands the instant the record's temp file
 * appears in the store (inotify). Every 50 cycles a keeper parked at the start is checked too.
 *
 * @example
 * const result = await sealKillLoop({ kills: 1000, minutes: 60, out: '/tmp/soak-seal', seed: 1 })
 */
import { existsSync, mkdirSync, readdirSync, rmSync, watch } from 'node:fs'
import { join } from 'node:path'
import { shortTmpDir, startHost, type SoakHost } from './host.ts'
import { openJournal } from './journal.ts'
import { parseShow } from './model.ts'
import { osProbe } from './os.ts'
import { serveSoakSites } from './sites.ts'
import { percentile } from './heal.ts'

/** What the loop found. */
export interface SealKillResult {
  readonly cycles: number
  readonly killsDuringSeal: number
  readonly killsMidWrite: number
  readonly ackedRestoredExactly: number
  readonly killedCameBackOld: number
  readonly killedCameBackNew: number
  readonly keepersChecked: number
  readonly hostStartMs: { readonly p50: number; readonly p95: number }
  readonly elapsedMs: number
  readonly violations: ReadonlyArray<string>
}

/** A version of a session: its sign-in cookie and localStorage value. */
interface Version {
  readonly v: string
}

const KEEPERS = ['keep-0', 'keep-1', 'keep-2']

/**
 * Runs until `kills` kills landed during a seal or `minutes` passed.
 *
 * @example
 * await sealKillLoop({ kills: 5, minutes: 5, out, seed: 1 })
 */
export const sealKillLoop = async (
  o: { readonly kills: number; readonly minutes: number; readonly out: string; readonly seed: number },
  say: (line: string) => void = () => {},
): Promise<SealKillResult> => {
  const dir = join(o.out, 'seal-work')
  rmSync(dir, { recursive: true, force: true })
  const dataDir = join(dir, 'data')
  const tmpDir = shortTmpDir()
  mkdirSync(dataDir, { recursive: true })
  mkdirSync(tmpDir, { recursive: true })
  mkdirSync(o.out, { recursive: true })
  const journal = openJournal(join(o.out, 'seal-journal.jsonl'), {
    seed: o.seed,
    sessions: 2 + KEEPERS.length,
    cap: 2,
    minutes: o.minutes,
    chaosEveryMs: 0,
    quietEveryMs: 0,
    healRounds: 0,
    out: o.out,
  })
  const sites = await serveSoakSites()
  const probe = osProbe({ owner: dataDir, tmpDir })
  const violations: string[] = []
  const starts: number[] = []
  const t0 = Date.now()
  const endAt = t0 + o.minutes * 60_000
  let cycles = 0
  let killsDuringSeal = 0
  let killsMidWrite = 0
  let ackedExact = 0
  let killedOld = 0
  let killedNew = 0
  let keepersChecked = 0
  let host: SoakHost | undefined
  const fail = (line: string) => {
    violations.push(line)
    journal.write({ kind: 'violation', detail: line })
    say(`violation: ${line}`)
  }
  const start = async () => {
    host = await startHost({ dataDir, tmpDir, env: { ERRANDS_MAX_SESSIONS: '2', ERRANDS_SESSION_IDLE_MS: '600000' } })
    starts.push(host.startMs)
    return host
  }
  /** Sets version `v` in session `key`: sign-in cookie and localStorage on shop.example. */
  const write = async (h: SoakHost, key: string, v: string) => {
    for (const path of [`/signin?n=sid&v=${v}`, `/store?k=v&v=${v}`]) {
      const r = await h.call(key, 'POST', '/v1/navigate', { url: sites.url('shop.example', path, `${key}~0.w`) })
      if (r.status !== 200) throw new Error(`${key}: navigate ${path} answered ${r.status} ${JSON.stringify(r.body)}`)
    }
  }
  /** The version session `key` holds (resuming it), or a description of what it holds instead. */
  const read = async (h: SoakHost, key: string): Promise<string> => {
    const nav = await h.call(key, 'POST', '/v1/navigate', { url: sites.url('shop.example', '/show', `${key}~0.r`) })
    if (nav.status !== 200) return `navigate ${nav.status} ${nav.body?.error?.code}`
    const text = await h.call(key, 'GET', '/v1/text')
    const shown = text.status === 200 ? parseShow(String(text.body.text)) : undefined
    if (shown === undefined) return `text ${text.status}`
    const sid = shown.cookies.sid
    const local = shown.local.v
    if (sid === undefined && local === undefined) return 'none'
    return sid === local && sid !== undefined ? sid : `mixed: cookie ${sid}, localStorage ${local}`
  }
  const park = (h: SoakHost, key: string) => h.call(key, 'POST', '/v1/session/task', { status: 'interrupted' })

  let acked: Version | undefined
  let killed: { old: Version | undefined; attempted: Version } | undefined
  let killedAcked: Version | undefined
  /** What the last cycle acknowledged must come back exactly; what its kill cut, old or new. */
  const verify = async (h: SoakHost) => {
    if (acked) {
      const got = await read(h, 'acked')
      if (got === acked.v) ackedExact++
      else fail(`cycle ${cycles}: acknowledged park of 'acked' (${acked.v}) came back as ${got}`)
    }
    if (killed) {
      const got = await read(h, 'killed')
      if (got === killed.attempted.v) {
        killedNew++
        killedAcked = killed.attempted
      } else if (got === (killed.old?.v ?? 'none')) killedOld++
      else
        fail(
          `cycle ${cycles}: the kill cut the park of 'killed' (${killed.attempted.v}); it came back as ${got}, not ` +
            `the old ${killed.old?.v ?? 'none'} nor the new`,
        )
    }
  }
  try {
    let h = await start()
    for (const k of KEEPERS) {
      await write(h, k, `${k}.v`)
      const r = await park(h, k)
      if (r.body?.lifecycle !== 'parked') throw new Error(`keeper ${k} did not park: ${JSON.stringify(r.body)}`)
    }
    while (killsDuringSeal < o.kills && Date.now() < endAt) {
      cycles++
      await verify(h)
      if (cycles % 50 === 0) {
        const k = KEEPERS[(cycles / 50) % KEEPERS.length]!
        const got = await read(h, k)
        keepersChecked++
        if (got !== `${k}.v`) fail(`cycle ${cycles}: keeper ${k} came back as ${got}`)
        const r = await park(h, k)
        if (r.body?.lifecycle !== 'parked') fail(`cycle ${cycles}: keeper ${k} did not park again (${r.status})`)
      }
      // The changes; an acknowledged park; a park cut by a kill during its seal.
      const va = { v: `acked~0.c${cycles}` }
      await write(h, 'acked', va.v)
      const ra = await park(h, 'acked')
      if (ra.body?.lifecycle === 'parked') acked = va
      else fail(`cycle ${cycles}: 'acked' did not park (${ra.status} ${JSON.stringify(ra.body)})`)
      const vk = { v: `killed~0.c${cycles}` }
      await write(h, 'killed', vk.v)
      killed = { old: killedAcked, attempted: vk }
      const store = join(dataDir, 'store')
      const current = h
      let sealing = false
      const watcher = watch(store, { recursive: true }, (_e, name) => {
        if (sealing || name === null || !String(name).endsWith('.tmp') || !String(name).includes('errands')) return
        sealing = true
        void current.kill()
      })
      const rk = await park(current, 'killed')
      watcher.close()
      await current.kill()
      if (rk.status === 200 && rk.body?.lifecycle === 'parked') {
        // The write finished before the kill: the new version was acknowledged.
        killedAcked = vk
        killed = { old: vk, attempted: vk }
      }
      if (sealing) killsDuringSeal++
      const errands = join(store, 'errands')
      const midWrite = existsSync(errands) && readdirSync(errands).some((n) => n.endsWith('.tmp'))
      if (midWrite) killsMidWrite++
      journal.write({ kind: 'seal-kill', cycle: cycles, sealing, midWrite, acked: rk.status === 200 })
      if (cycles % 25 === 0)
        say(
          `seal-kill: ${cycles} cycles, ${killsDuringSeal} kills during a seal (${killsMidWrite} with the record ` +
            `half on disk), host start p50 ${Math.round(percentile(starts, 50))} ms`,
        )
      h = await start()
      if (probe.chromium().total > 40)
        fail(`cycle ${cycles}: ${probe.chromium().total} Chromium processes of this data dir (orphans not reaped)`)
    }
    // The last kill's aftermath is checked too.
    await verify(h)
  } catch (e) {
    fail(`stopped: ${String(e)}`)
  } finally {
    await host?.stop()
    rmSync(tmpDir, { recursive: true, force: true })
    journal.close()
    await sites.close()
  }
  return {
    cycles,
    killsDuringSeal,
    killsMidWrite,
    ackedRestoredExactly: ackedExact,
    killedCameBackOld: killedOld,
    killedCameBackNew: killedNew,
    keepersChecked,
    hostStartMs: { p50: Math.round(percentile(starts, 50)), p95: Math.round(percentile(starts, 95)) },
    elapsedMs: Date.now() - t0,
    violations,
  }
}
