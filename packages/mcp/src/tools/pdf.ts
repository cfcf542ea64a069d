/**
 * The `pdf` capability's tool (Playwright MCP's, offered with `--caps pdf`): the active page as
 * a PDF. Playwright MCP writes the file into its output directory; this server writes no files,
 * so the PDF comes back in the result as an embedded resource (`application/pdf`, base64).
 *
 * @example
 * await client.callTool({ name: 'browser_pdf_save', arguments: {} })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import { shownUrl, tool } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

/** `browser_pdf_save`. @example browserPdfSave.run(ctx, {}) */
export const browserPdfSave = tool({
  name: 'browser_pdf_save',
  title: 'Save as PDF',
  description: 'Save page as PDF',
  inputSchema: {
    filename: z
      .string()
      .max(256)
      .optional()
      .describe(
        'The name the PDF is given in the result (nothing is written to disk). Defaults to `page-{timestamp}.pdf`.',
      ),
  },
  run: (ctx, { filename }) =>
    Effect.map(
      onPlaywrightPage(ctx.errand, 'pdf', async (page) => ({ pdf: await page.pdf(), url: page.url() })),
      ({ pdf, url }) => {
        const name = (filename ?? `page-${new Date().toISOString().replace(/[:.]/g, '-')}.pdf`).replace(
          /[^A-Za-z0-9._-]/g,
          '_',
        )
        return {
          content: [
            {
              type: 'text' as const,
              text:
                `### Result\nSaved ${shownUrl(url)} as a PDF of ${pdf.length} bytes (${name}), in this result; ` +
                `nothing was written to disk.`,
            },
            {
              type: 'resource' as const,
              resource: { uri: `errands:pdf/${name}`, mimeType: 'application/pdf', blob: pdf.toString('base64') },
            },
          ],
        }
      },
    ),
})

/** The `pdf` capability. @example pdfTools.map((t) => t.name) */
export const pdfTools = [browserPdfSave] as const
