/**
 * The page tools of issue #25 over Playwright — what Playwright MCP's tools do, for the verbs of
 * every face: evaluate an expression, fill a form, drag, upload files of the errand's own
 * folder. `pageVerbs.ts` runs them under its deadlines and failure kinds; a page that throws
 * is `invalid` with the page's words, not a browser failure.
 *
 * @example
 * const { value } = await evaluateIn(page, 'document.title', 1_000_000)
 * await fillForm(page, [{ selector: '#q', value: 'apples' }, { selector: '#agree', value: 'true' }], 10_000)
 */
import { realpath } from 'node:fs/promises'
import { join, sep } from 'node:path'
import { isPlainFileName, RuntimeError, type PageEvaluation, type PageFormField } from '@errands/runtime'
import type { Page } from 'playwright-core'
import { toRuntimeError } from './failures.ts'

const invalid = (message: string) => new RuntimeError({ reason: 'invalid', message })

/**
 * Evaluates `expression` in the page (a promise it gives is awaited) and answers its JSON value,
 * cut at `limit` characters of JSON. What the page throws is `invalid` with its message; a page
 * or context that went is `target-closed`, as for every verb.
 *
 * @example
 * await evaluateIn(page, '[...document.querySelectorAll("li")].length', 1_000_000) // { value: 3, truncated: false }
 */
export const evaluateIn = async (page: Page, expression: string, limit: number): Promise<PageEvaluation> => {
  let value: unknown
  try {
    // A string, not a function: it runs as the page's own script (what the caller sent).
    value = await page.evaluate(expression)
  } catch (e) {
    const failure = toRuntimeError('evaluate', e)
    if (failure.reason !== 'unavailable') throw failure
    throw invalid(
      `evaluate: the page threw: ${(e instanceof Error ? e.message : String(e))
        .replace(/^page\.evaluate: /, '')
        .split('\n')[0]
        ?.slice(0, 2_000)}`,
    )
  }
  let json: string
  try {
    json = JSON.stringify(value) ?? 'null'
  } catch {
    json = 'null'
  }
  return json.length > limit
    ? { value: json.slice(0, limit), truncated: true }
    : { value: JSON.parse(json) as unknown, truncated: false }
}

/**
 * Fills each field by what it is: a `<select>` selects the option with that value (or label), a
 * checkbox or radio is checked unless the value is `'false'` or `''`, anything else is filled.
 *
 * @example
 * await fillForm(page, [{ selector: '#name', value: 'Ada' }, { selector: '#size', value: 'L' }], 10_000)
 */
export const fillForm = async (page: Page, fields: ReadonlyArray<PageFormField>, timeoutMs: number): Promise<void> => {
  for (const { selector, value } of fields) {
    const field = page.locator(selector).first()
    const kind = await field.evaluate(
      (el) =>
        el.tagName === 'SELECT'
          ? 'select'
          : el.tagName === 'INPUT' && /^(checkbox|radio)$/i.test((el as HTMLInputElement).type)
            ? 'check'
            : 'fill',
      undefined,
      { timeout: timeoutMs },
    )
    // A string option matches a value or a label (Playwright's selectOption).
    if (kind === 'select') await field.selectOption(value, { timeout: timeoutMs })
    else if (kind === 'check') await field.setChecked(value !== 'false' && value !== '', { timeout: timeoutMs })
    else await field.fill(value, { timeout: timeoutMs })
  }
}

/**
 * Drags the element `from` onto the element `to` (mouse down, moves, up: what a person does,
 * so HTML5 drag and drop and pointer-driven sorting both see it).
 *
 * @example
 * await drag(page, '#card', '#done', 10_000)
 */
export const drag = (page: Page, from: string, to: string, timeoutMs: number): Promise<void> =>
  page.dragAndDrop(from, to, { timeout: timeoutMs })

/**
 * Sets the files of the file input `selector` to `names`, each a plain file of `folder` (the
 * errand's own files folder): a name with a separator, `.` or `..`, one that is not there, or a
 * link that leads out of the folder is `invalid`, and nothing is set.
 *
 * @example
 * await upload(page, '#file', ['receipt.pdf'], dir, 10_000)
 */
export const upload = async (
  page: Page,
  selector: string,
  names: ReadonlyArray<string>,
  folder: string,
  timeoutMs: number,
): Promise<void> => {
  const root = await realpath(folder)
  const paths: Array<string> = []
  for (const name of names) {
    if (!isPlainFileName(name))
      throw invalid(
        `upload: ${JSON.stringify(name.slice(0, 300))} is not a plain file name (no path separators, no . or ..)`,
      )
    const real = await realpath(join(root, name)).catch(() => undefined)
    if (real === undefined)
      throw invalid(`upload: there is no file ${JSON.stringify(name)} in this errand's files folder`)
    if (!real.startsWith(root + sep))
      throw invalid(`upload: ${JSON.stringify(name)} leads out of this errand's files folder`)
    paths.push(real)
  }
  await page.locator(selector).first().setInputFiles(paths, { timeout: timeoutMs })
}
