/**
 * How the page is shown: `browser_resize` (the viewport) and `browser_emulate_media` (CSS media
 * features: colour scheme, reduced motion …). Both change the errand's active page only.
 *
 * @example
 * await client.callTool({ name: 'browser_emulate_media', arguments: { colorScheme: 'dark' } })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import { afterAction, tool } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/** `browser_resize`. @example browserResize.run(ctx, { width: 800, height: 600 }) */
export const browserResize = tool({
  name: 'browser_resize',
  title: 'Resize browser window',
  description: 'Resize the browser window',
  inputSchema: {
    width: z.number().int().min(1).max(10_000).describe('Width of the browser window'),
    height: z.number().int().min(1).max(10_000).describe('Height of the browser window'),
  },
  run: (ctx, { width, height }) =>
    Effect.zipRight(
      onPlaywrightPage(ctx.errand, 'resize', (page) => page.setViewportSize({ width, height })),
      afterAction(ctx, `Resized the viewport to ${width}×${height}.`),
    ),
})

const feature = <T extends readonly [string, ...Array<string>]>(values: T, what: string) =>
  z.enum(values).nullable().optional().describe(what)

/** `browser_emulate_media`. @example browserEmulateMedia.run(ctx, { colorScheme: 'dark', reducedMotion: null }) */
export const browserEmulateMedia = tool({
  name: 'browser_emulate_media',
  title: 'Emulate media features',
  description:
    'Emulate CSS media features for the page, for example switch between the light and dark color scheme. Omitted ' +
    'parameters are left unchanged; null clears an override.',
  inputSchema: {
    colorScheme: feature(['light', 'dark'], 'Emulates the prefers-color-scheme media feature'),
    reducedMotion: feature(['reduce', 'no-preference'], 'Emulates the prefers-reduced-motion media feature'),
    forcedColors: feature(['active', 'none'], 'Emulates the forced-colors media feature'),
    contrast: feature(['more', 'no-preference'], 'Emulates the prefers-contrast media feature'),
    media: feature(['screen', 'print'], 'Changes the CSS media type of the page'),
  },
  run: (ctx, args) => {
    const set = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined))
    return Effect.zipRight(
      onPlaywrightPage(ctx.errand, 'emulate media', (page) => page.emulateMedia(set)),
      afterAction(
        ctx,
        Object.keys(set).length === 0
          ? 'Nothing to change.'
          : `Emulated ${Object.entries(set)
              .map(([k, v]) => `${k}: ${v ?? '(cleared)'}`)
              .join(', ')}.`,
      ),
    )
  },
})

/** The view tools. @example viewTools.map((t) => t.name) */
export const viewTools = [browserResize, browserEmulateMedia] as const
