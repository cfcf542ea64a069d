import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../fixtures/ports.ts'

/*
 * R4 (issue #28): Errands installs anywhere. Every workspace package is packed with `npm pack`
 * (from the dist/ the tier's globalSetup built), the tarballs are installed into an empty project
 * outside the repository with plain `npm install`, and then (a) an embedder's program imports
 * `@errands/supervisor`, opens and drives an errand on real Chromium and closes it, and (b) the
 * packed `errands` binary runs `host` under plain `node`, answers /v1/navigate and stops on
 * SIGTERM. Nothing may come from the repository or from a devDependency: the project lives in
 * the OS temp dir (no node_modules above it), and the program reports where every module was
 * loaded from.
 *
 * Cached for speed: the installed project is kept under $TMPDIR/errands-install/<hash of the
 * tarballs>, so a run whose packages did not change skips `npm install`; npm's own cache
 * (`--prefer-offline`) makes a changed one fast.
 */

const repo = resolve(import.meta.dirname, '../..')
const chromium = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium'
let project: string
let packDir: string

const npm = (args: ReadonlyArray<string>, cwd: string): string =>
  execFileSync('npm', [...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })

beforeAll(() => {
  packDir = mkdtempSync(join(tmpdir(), 'errands-pack-'))
  const packed = JSON.parse(npm(['pack', '--workspaces', '--json', '--pack-destination', packDir], repo)) as Array<{
    filename: string
    name: string
  }>
  const tarballs = packed.map((p) => join(packDir, p.filename)).sort()
  const hash = createHash('sha256')
  for (const t of tarballs) hash.update(readFileSync(t))
  const cache = join(tmpdir(), 'errands-install')
  project = join(cache, hash.digest('hex').slice(0, 16))
  if (!existsSync(join(project, '.installed'))) {
    // Older installs are of packages that no longer exist in this form.
    rmSync(cache, { recursive: true, force: true })
    mkdirSync(join(project, 'tarballs'), { recursive: true })
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'an-embedder', private: true, type: 'module' }, null, 2),
    )
    const local = tarballs.map((t) => {
      const copy = join(project, 'tarballs', t.split('/').at(-1)!)
      copyFileSync(t, copy)
      return `./tarballs/${t.split('/').at(-1)}`
    })
    // The embedder's own dependency on Effect, as README's example imports it.
    npm(
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...local, 'effect@3.22.4'],
      project,
    )
    writeFileSync(join(project, '.installed'), new Date().toISOString())
  }
  copyFileSync(join(import.meta.dirname, 'embed.mjs'), join(project, 'embed.mjs'))
}, 600_000)

afterAll(() => {
  rmSync(packDir, { recursive: true, force: true })
})

describe('the packed packages, installed outside the monorepo (R4)', () => {
  it('pack every workspace package with dist/ and without TypeScript sources or tests', () => {
    const names = readdirSync(packDir)
    expect(names.length).toBeGreaterThanOrEqual(16)
    const cli = readdirSync(join(project, 'node_modules/@errands/cli/dist'))
    expect(cli).toContain('main.js')
    expect(cli.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([])
    expect(cli.filter((f) => f.includes('.test.'))).toEqual([])
    expect(readFileSync(join(project, 'node_modules/@errands/cli/dist/main.js'), 'utf8').split('\n')[0]).toBe(
      '#!/usr/bin/env node',
    )
  })

  it('(c) the packed `errands demo` replays the journals it ships with, each to its golden trace', () => {
    const out = execFileSync(process.execPath, [join(project, 'node_modules/.bin/errands'), 'demo'], {
      cwd: project,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      timeout: 60_000,
    })
    for (const name of ['cap', 'heal', 'park']) {
      expect(out).toContain(
        `== ${name}.jsonl (t, conversation, state) ` +
          `==\n${readFileSync(join(repo, 'journals', `${name}.trace`), 'utf8')}`,
      )
    }
  })

  it('(a) an embedder imports @errands/supervisor and drives an errand on real Chromium, everything loaded from its ' +
    'own node_modules', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'errands-embed-'))
    try {
      const out = execFileSync(process.execPath, ['embed.mjs'], {
        cwd: project,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          CHROMIUM_PATH: chromium,
          EMBED_DATA_DIR: dataDir,
        },
        timeout: 120_000,
      })
      const report = JSON.parse(out.trim().split('\n').at(-1)!) as {
        loaded: Record<string, string>
        tab: { url: string; title: string }
        states: Array<string>
      }
      for (const where of Object.values(report.loaded)) {
        expect(where.startsWith(`file://${project}/node_modules/`)).toBe(true)
        expect(where).not.toContain('/src/')
      }
      expect(report.tab.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/errand$/)
      expect(report.states).toContain('active')
      expect(report.states.at(-1)).toBe('closed')
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 150_000)

  it('(b) the packed `errands host` runs under plain node, answers /v1/navigate, and exits 0 on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'errands-packed-host-'))
    const port = await freePort()
    const child = spawn(process.execPath, [join(project, 'node_modules/.bin/errands'), 'host'], {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        CHROMIUM_PATH: chromium,
        ERRANDS_PORT: String(port),
        ERRANDS_DATA_DIR: dataDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    try {
      const base = await new Promise<string>((resolveUrl, reject) => {
        child.stdout.on('data', () => {
          const m = /errands host listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
          if (m) resolveUrl(m[1]!)
        })
        void exited.then((code) => reject(new Error(`the packed host exited (${code}) before it listened:\n${err}`)))
      })
      const site = await import('node:http').then(({ createServer }) => {
        const s = createServer((_, res) => res.end('<title>packed host</title>'))
        return new Promise<{ url: string; close: () => void }>((r) =>
          s.listen(0, '127.0.0.1', () =>
            r({ url: `http://127.0.0.1:${(s.address() as { port: number }).port}/`, close: () => s.close() }),
          ),
        )
      })
      try {
        const reply = await fetch(`${base}/v1/navigate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-browser-session': 'packed' },
          body: JSON.stringify({ url: site.url }),
        })
        const body = await reply.text()
        expect(reply.status, body).toBe(200)
        expect(body).toContain('packed host')
      } finally {
        site.close()
      }
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 150_000)
})
