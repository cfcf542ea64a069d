/**
 * Filling a sign-in form with stand-ins (W2, W3; docs/passwords.md): every field is found and
 * judged first — a field in a frame whose URL the destination does not allow fills nothing —
 * then each secret gets a fresh stand-in, registered with the swap before it is typed, so no
 * request the page makes with it goes out unseen.
 *
 * @example
 * const outcome = await fillSecrets(page, fill, swap, contextId, signal)
 */
import { mintStandIn, RuntimeError, type ContextId, type SecretFill, type SecretFillOutcome } from '@errands/runtime'
import type { BrowserContext, Page } from 'playwright-core'
import type { StandInSwap } from './standInSwap.ts'

const browserContextIds = new WeakMap<BrowserContext, string>()

/** The CDP browser context id of a page's context (Playwright does not expose it; a page's target info carries it). */
const browserContextIdOf = async (page: Page): Promise<string> => {
  const context = page.context()
  const known = browserContextIds.get(context)
  if (known !== undefined) return known
  const session = await context.newCDPSession(page)
  try {
    const { targetInfo } = await session.send('Target.getTargetInfo')
    const id = targetInfo.browserContextId
    if (id === undefined)
      throw new RuntimeError({ reason: 'unavailable', message: 'the tab reports no browser context' })
    browserContextIds.set(context, id)
    return id
  } finally {
    await session.detach().catch(() => undefined)
  }
}

/**
 * Fills `fill`'s fields on `page` in order; secrets as stand-ins the swap knows.
 *
 * @example
 * await fillSecrets(page, { fields, destination, timeoutMs: 10_000 }, swap, 'e1.3')
 */
export const fillSecrets = async (
  page: Page,
  fill: SecretFill,
  swap: StandInSwap,
  contextId: ContextId,
  signal?: AbortSignal,
): Promise<SecretFillOutcome> => {
  // Judge every field before filling any: a refusal leaves the page as it was.
  const found: Array<{ readonly field: SecretFill['fields'][number]; readonly maxLength: number | undefined }> = []
  for (const field of fill.fields) {
    signal?.throwIfAborted()
    const handle = await page.locator(field.selector).elementHandle({ timeout: fill.timeoutMs })
    try {
      const frame = await handle.ownerFrame()
      if (frame === null || !fill.destination.allows(frame.url()))
        return { _tag: 'wrong-frame', selector: field.selector }
      const maxLength = Number(await handle.getAttribute('maxlength'))
      found.push({ field, maxLength: Number.isInteger(maxLength) && maxLength > 0 ? maxLength : undefined })
    } finally {
      await handle.dispose().catch(() => undefined)
    }
  }
  const browserContextId = await browserContextIdOf(page)
  for (const { field, maxLength } of found) {
    signal?.throwIfAborted()
    let text: string
    if (field.value._tag === 'plain') text = field.value.text
    else {
      const secret = field.value.secret
      const token = mintStandIn(secret.shape, secret.digits ?? 6, maxLength)
      if (token === undefined) {
        throw new RuntimeError({
          reason: 'invalid',
          message: `the field ${field.selector} takes at most ${maxLength} characters: too few for a stand-in`,
        })
      }
      await swap.add({
        token,
        shape: secret.shape,
        reveal: secret.reveal,
        contextId,
        browserContextId,
        destination: fill.destination,
      })
      text = token
    }
    await page.fill(field.selector, text, { timeout: fill.timeoutMs })
  }
  return { _tag: 'filled', fields: found.length }
}
