/**
 * The live view's front end, bundled in memory by esbuild when the host starts (ADR 0008): the
 * Preact app in `web/` becomes one script and one stylesheet the host serves itself — no build
 * step to remember, no CDN, nothing fetched at run time.
 *
 * @example
 * const assets = await bundleAssets()
 * assets.js.length > 0
 */
import { build } from 'esbuild'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** The bundled front end. */
export interface Assets {
  readonly js: string
  readonly css: string
}

const webDir = fileURLToPath(new URL('../web/', import.meta.url))

let cached: Promise<Assets> | undefined

/**
 * Bundles `web/main.tsx` (once per process) and reads `web/style.css`.
 *
 * @example
 * const { js, css } = await bundleAssets()
 */
export const bundleAssets = (): Promise<Assets> => {
  cached ??= (async () => {
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
    const js = result.outputFiles[0]!.text
    const css = await readFile(`${webDir}style.css`, 'utf8')
    return { js, css }
  })()
  cached.catch(() => (cached = undefined))
  return cached
}
