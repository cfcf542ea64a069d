/**
 * The live view's front end: the Preact app in `web/` as one script and one stylesheet the host
 * serves itself — no CDN, nothing fetched at run time (ADR 0008).
 *
 * The compiled package serves what the build bundled (`dist/web/app.js`, `dist/web/app.css`,
 * written by `bundleWeb` from scripts/build.sh), so an installed package needs neither esbuild nor
 * the app's TypeScript source. In the repository, running from source (`src/*.ts`), it bundles
 * `web/main.tsx` in memory once per process, so an edit shows without a build.
 *
 * @example
 * const assets = await bundleAssets()
 * assets.js.length > 0
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** The bundled front end. */
export interface Assets {
  readonly js: string
  readonly css: string
}

const webDir = fileURLToPath(new URL('../web/', import.meta.url))
const builtDir = fileURLToPath(new URL('../dist/web/', import.meta.url))
const fromSource = import.meta.url.endsWith('.ts')

/** Bundles `web/` in memory with esbuild (a build-time tool: imported only here). */
const bundleSource = async (): Promise<Assets> => {
  const { build } = await import('esbuild')
  const result = await build({
    entryPoints: [`${webDir}main.tsx`],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  })
  return { js: result.outputFiles[0]!.text, css: await readFile(`${webDir}style.css`, 'utf8') }
}

/**
 * Writes the bundle into `dist/web/` (the build does this; the packed package serves it).
 *
 * @example
 * await bundleWeb()
 */
export const bundleWeb = async (): Promise<void> => {
  const { js, css } = await bundleSource()
  await mkdir(builtDir, { recursive: true })
  await writeFile(`${builtDir}app.js`, js)
  await writeFile(`${builtDir}app.css`, css)
}

let cached: Promise<Assets> | undefined

/**
 * The front end (once per process): bundled from source in the repository, read from `dist/web/`
 * when compiled.
 *
 * @example
 * const { js, css } = await bundleAssets()
 */
export const bundleAssets = (): Promise<Assets> => {
  cached ??= fromSource
    ? bundleSource()
    : Promise.all([readFile(`${builtDir}app.js`, 'utf8'), readFile(`${builtDir}app.css`, 'utf8')]).then(
        ([js, css]) => ({ js, css }),
      )
  cached.catch(() => (cached = undefined))
  return cached
}
