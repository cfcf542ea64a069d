import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { build } from 'esbuild'

/*
 * What the SIGKILL tests of both sealed stores share (test/store/crash.test.ts for files,
 * test/store-pg/crash.test.ts for Postgres): a bundled writer child, its protocol of lines, a
 * seeded PRNG for the kill moments.
 *
 * Why a bundle: `node --import tsx crash-writer.ts` works but spends ~2 s per start on this
 * machine loading effect through the loader hooks, which makes 50 kills take ~100 s. esbuild
 * (the compiler tsx itself uses) bundles the same source once into one file that starts in
 * ~0.3 s.
 */

/**
 * Bundles a writer script into `outDir` and returns the bundle's path. CommonJS dependencies
 * (the `pg` driver) get a `require` of their own in the ESM bundle.
 *
 * @example
 * const writer = await bundleWriter(join(here, 'crash-writer.ts'), work)
 */
export const bundleWriter = async (entry: string, outDir: string): Promise<string> => {
  const outfile = join(outDir, 'crash-writer.mjs')
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'warning',
    // pg's optional native binding is never installed.
    external: ['pg-native'],
    banner: {
      js:
        "import { createRequire as __errandsRequire } from 'node:module'; const require = " +
        '__errandsRequire(import.meta.url);',
    },
  })
  return outfile
}

/**
 * A small seeded PRNG (mulberry32), so a failing run can be replayed with CRASH_SEED.
 *
 * @example
 * const random = prng(42); random() // 0..1
 */
export const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** One writer child and what it said. */
export interface Run {
  readonly child: ChildProcess
  /** Versions the child started putting ("w n") and finished putting ("d n"), in order. */
  readonly started: Array<number>
  readonly done: Array<number>
  /** Versions written inside a transaction the child holds open ("h n"). */
  readonly held: Array<number>
  readonly stderr: Array<string>
  readonly closed: Promise<void>
}

const running = new Set<ChildProcess>()

/**
 * SIGKILLs every writer still running: a test that failed between a start and its kill must
 * not leave a writer behind (one held in its transaction would wait forever).
 *
 * @example
 * afterAll(killWriters)
 */
export const killWriters = (): void => {
  for (const child of running) child.kill('SIGKILL')
}

/**
 * Starts the bundled writer with `args` (and extra environment variables).
 *
 * @example
 * const run = startWriter(writer, [dir, '0'])
 */
export const startWriter = (writer: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): Run => {
  const child = spawn(process.execPath, [writer, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  })
  running.add(child)
  child.once('exit', () => running.delete(child))
  const run: Run = {
    child,
    started: [],
    done: [],
    held: [],
    stderr: [],
    // 'close' fires after the pipes are drained, so every line the child wrote has been seen.
    closed: new Promise((resolve) => child.on('close', () => resolve())),
  }
  let pending = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8')
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      const [kind, n] = line.split(' ')
      ;(kind === 'w' ? run.started : kind === 'h' ? run.held : run.done).push(Number(n))
    }
  })
  child.stderr?.on('data', (chunk: Buffer) => run.stderr.push(chunk.toString('utf8')))
  return run
}

/**
 * Polls a condition every 2 ms (the kill windows are milliseconds wide).
 *
 * @example
 * await waitUntil(() => run.done.length > 0, 15_000, 'the first put')
 */
export const waitUntil = async (condition: () => boolean, ms: number, what: string): Promise<void> => {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 2))
  }
}

/** What `randomKills` needs of one store. */
export interface KillPlan {
  readonly kills: number
  readonly seed: number
  /** Starts a writer that parks versions from `from` on. */
  readonly start: (from: number) => Run
  /** Kill `i` may land anywhere, start-up included (otherwise once a put has finished). */
  readonly anywhere?: ((i: number) => boolean) | undefined
  /**
   * Opens a fresh store, checks what is store-specific (problems, temp files, rows) and returns
   * the version the record holds, or `undefined` when there is none; a torn record fails here.
   */
  readonly readVersion: (at: string) => Promise<number | undefined>
}

/**
 * Kills writers at random moments, `plan.kills` times: after each kill a fresh store must read
 * the last finished version or the one in flight, never an error, never nothing once something
 * was written. Returns how many kills landed inside a put.
 *
 * @example
 * expect(await randomKills({ kills: 20, seed, start, readVersion }), `seed ${seed}`).toBeGreaterThan(0)
 */
export const randomKills = async (plan: KillPlan, check: (ok: boolean, message: string) => void): Promise<number> => {
  const random = prng(plan.seed)
  let stored: number | undefined
  let killedMidPut = 0
  for (let i = 0; i < plan.kills; i++) {
    const at = `seed ${plan.seed}, kill ${i}`
    const run = plan.start(stored === undefined ? 0 : stored + 1)
    if (stored === undefined || !(plan.anywhere?.(i) ?? false)) {
      await waitUntil(() => run.done.length > 0 || run.child.exitCode !== null, 15_000, `the first put (${at})`)
      check(run.child.exitCode === null, `${at}: the writer exited: ${run.stderr.join('')}`)
      await new Promise((r) => setTimeout(r, random() * 40))
    } else {
      await new Promise((r) => setTimeout(r, random() * 400))
    }
    run.child.kill('SIGKILL')
    await run.closed
    check(run.stderr.join('') === '', `${at}: ${run.stderr.join('')}`)
    const lastDone = run.done.at(-1)
    const lastStarted = run.started.at(-1)
    if (lastStarted !== undefined && lastStarted !== lastDone) killedMidPut++
    // Old or new: the last finished put (or, with none, what was there before) or the one in flight.
    const allowed = [lastDone ?? stored, lastStarted].filter((n): n is number => n !== undefined)
    const version = await plan.readVersion(at)
    check(allowed.length === 0 || version !== undefined, `${at}: the record is missing`)
    check(version === undefined || allowed.includes(version), `${at}: read ${version}, allowed ${allowed.join(' or ')}`)
    stored = version ?? stored
  }
  return killedMidPut
}
