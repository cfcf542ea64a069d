/**
 * Forms and files: `browser_fill_form` (several fields at once, by target), `browser_file_upload`
 * (answers the file chooser a click opened) and `browser_drop` (files or MIME-typed data dropped
 * onto an element, as if dragged from outside the page).
 *
 * Files come only from the errand's own files folder (uploads.ts, docs/files.md), by plain name —
 * the folder `/v1/upload` uses; anything else is refused with `UploadRefused` and the page gets no file.
 *
 * @example
 * await client.callTool({ name: 'browser_fill_form', arguments: { fields: [{ name: 'Name', type: 'textbox', target:
 * 'e8', value: 'Ann' }] } })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import { ToolRefused, type UploadRefused } from '../errors.ts'
import { errandUploads, type ErrandUpload } from '../uploads.ts'
import {
  ACTION_MS,
  describeNamed,
  elementField,
  onTarget,
  onTargets,
  pick,
  refField,
  targetField,
  targetShape,
  type Named,
} from './target.ts'
import { afterAction, tool, type ToolContext } from './tool.ts'
import { onPlaywrightPage } from '../playwrightPage.ts'

const filesOf = (
  ctx: ToolContext,
  paths: ReadonlyArray<string>,
): Effect.Effect<ReadonlyArray<ErrandUpload>, UploadRefused> => errandUploads(ctx.errand, paths)

/**
 * `browser_fill_form`. @example browserFillForm.run(ctx, { fields: [{ name: 'Agree', type: 'checkbox', target: 'e10',
 * value: 'true' }] })
 */
export const browserFillForm = tool({
  name: 'browser_fill_form',
  title: 'Fill form',
  description: 'Fill multiple form fields',
  inputSchema: {
    fields: z
      .array(
        z.object({
          element: elementField(),
          target: targetField(),
          ref: refField(),
          name: z.string().max(1_000).describe('Human-readable field name'),
          type: z.enum(['textbox', 'checkbox', 'radio', 'combobox', 'slider']).describe('Type of the field'),
          value: z
            .string()
            .max(100_000)
            .describe(
              'Value to fill in the field. If the field is a checkbox, the value should be `true` or `false`. If the ' +
                'field is a combobox, the value should be the text of the option.',
            ),
        }),
      )
      .min(1)
      .max(100)
      .describe('Fields to fill in'),
  },
  run: (ctx, { fields }) =>
    Effect.gen(function* () {
      const named: Array<Named> = []
      for (const f of fields)
        named.push(yield* pick({ element: f.element ?? f.name, target: f.target, ref: f.ref }, 'target of every field'))
      yield* onTargets(ctx, 'fill form', named, async (found) => {
        for (const [i, f] of fields.entries()) {
          const el = found[i]!
          if (f.type === 'checkbox' || f.type === 'radio')
            await el.setChecked(f.value === 'true', { timeout: ACTION_MS })
          else if (f.type === 'combobox')
            await el
              .selectOption({ label: f.value }, { timeout: ACTION_MS })
              .catch(() => el.selectOption(f.value, { timeout: ACTION_MS }))
          else await el.fill(f.value, { timeout: ACTION_MS })
        }
      })
      // Values are not repeated (a field may hold a password, L7); the snapshot shows the page.
      return yield* afterAction(
        ctx,
        `Filled ${fields.length} field${fields.length === 1 ? '' : 's'}: ` +
          `${fields.map((f) => JSON.stringify(f.name.slice(0, 80))).join(', ')}.`,
      )
    }),
})

/** `browser_file_upload`. @example browserFileUpload.run(ctx, { paths: ['report.pdf'] }) */
export const browserFileUpload = tool({
  name: 'browser_file_upload',
  title: 'Upload files',
  description:
    "Upload one or multiple files. Only files of this errand's own files folder can be uploaded, by name: its " +
    'downloads, or files staged with POST /v1/session/files.',
  inputSchema: {
    paths: z
      .array(z.string().min(1).max(4_096))
      .max(100)
      .optional()
      .describe(
        "The files to upload: names of files in this errand's files folder. Can be single file or multiple files. If " +
          'omitted, file chooser is cancelled.',
      ),
  },
  run: (ctx, { paths }) =>
    Effect.gen(function* () {
      const files = paths === undefined ? [] : yield* filesOf(ctx, paths)
      const none = yield* onPlaywrightPage(ctx.errand, 'file upload', async (page) => {
        const log = ctx.logs.watch(page)
        const modal = log.modal
        if (modal?.kind !== 'filechooser') return true
        log.modal = undefined
        await modal.chooser.setFiles(
          files.map((f) => ({ name: f.name, mimeType: f.mimeType, buffer: f.buffer })),
          { timeout: ACTION_MS },
        )
        return false
      })
      if (none)
        return yield* new ToolRefused({
          reason: 'no-modal',
          message:
            'No file chooser is open: click the file input first (its click answers with "[File chooser]" under ### ' +
            'Modal state), then upload.',
        })
      return yield* afterAction(
        ctx,
        files.length === 0
          ? 'Cancelled the file chooser.'
          : `Uploaded ${files.map((f) => JSON.stringify(f.name)).join(', ')}.`,
      )
    }),
})

/**
 * `browser_drop`. @example browserDrop.run(ctx, { element: 'Drop zone', target: 'e4', data: { 'text/plain': 'hello' }
 * })
 */
export const browserDrop = tool({
  name: 'browser_drop',
  title: 'Drop files or data onto an element',
  description:
    'Drop files or MIME-typed data onto an element, as if dragged from outside the page. At least one of "paths" or ' +
    '"data" must be provided.',
  inputSchema: {
    ...targetShape,
    paths: z
      .array(z.string().min(1).max(4_096))
      .max(100)
      .optional()
      .describe("Files to drop onto the element: names of files in this errand's files folder."),
    data: z
      .record(z.string(), z.string().max(1_000_000))
      .optional()
      .describe(
        'Data to drop, as a map of MIME type to string value (e.g. {"text/plain": "hello", "text/uri-list": ' +
          '"https://example.com"}).',
      ),
  },
  run: (ctx, args) =>
    Effect.gen(function* () {
      if (args.paths === undefined && args.data === undefined) {
        return yield* new ToolRefused({
          reason: 'invalid-argument',
          message: 'browser_drop needs paths or data (or both).',
        })
      }
      const n = yield* pick(args)
      const files = yield* filesOf(ctx, args.paths ?? [])
      const payload = files.map((f) => ({ name: f.name, b64: f.buffer.toString('base64') }))
      yield* onTarget(ctx, 'drop', n, (el) =>
        el.evaluate(
          (target, { payload, data }) => {
            const dt = new DataTransfer()
            for (const [type, value] of Object.entries(data)) dt.setData(type, value)
            for (const f of payload)
              dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name))
            for (const type of ['dragenter', 'dragover', 'drop'])
              target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }))
          },
          { payload, data: args.data ?? {} },
        ),
      )
      return yield* afterAction(
        ctx,
        `Dropped ${[...files.map((f) => JSON.stringify(f.name)), ...Object.keys(args.data ?? {})].join(', ')} onto ` +
          `${describeNamed(n)}.`,
      )
    }),
})

/** The form and file tools. @example formTools.map((t) => t.name) */
export const formTools = [browserFillForm, browserFileUpload, browserDrop] as const
