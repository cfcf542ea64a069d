/**
 * Tools that involve the person (P4, issue #26). `browser_request_sign_in` asks the person to
 * lend their sign-in for a site to this browser: the question appears in their live view as
 * "Allow lends your sign-in to this task" and the tool waits for Allow or Deny (at most
 * `timeoutMs`). Auto and full trust never lend, so they answer at once (L3). The result says
 * whether it was lent and what to do next; never a cookie (L7). `browser_request_help` asks a
 * person to take the wheel (P3): the reason shows at the top of their live view, and the tool
 * waits until they hand back — with their note — or the time runs out.
 *
 * @example
 * await client.callTool({ name: 'browser_request_sign_in', arguments: { site: 'shop.example' } })
 */
import {
  HELP_DEFAULT_TIMEOUT_MS,
  HELP_MAX_TIMEOUT_MS,
  HELP_MIN_TIMEOUT_MS,
  HELP_REASON_MAX,
  SIGN_IN_DEFAULT_TIMEOUT_MS,
  SIGN_IN_MAX_TIMEOUT_MS,
  SIGN_IN_MIN_TIMEOUT_MS,
  SIGN_IN_SITE_MAX,
} from '@errands/sessions'
import { Effect } from 'effect'
import { z } from 'zod'
import { ToolRefused } from '../errors.ts'
import { text, tool } from './tool.ts'

/** `browser_request_sign_in`. @example browserRequestSignIn.run(ctx, { site: 'shop.example' }) */
export const browserRequestSignIn = tool({
  name: 'browser_request_sign_in',
  title: 'Ask the person for a sign-in',
  description:
    'Ask the person to lend this browser their sign-in for a site (they press Allow or Deny in their live view). Use ' +
    "it when a site needs the person's account; waits for the answer.",
  inputSchema: {
    site: z
      .string()
      .min(1)
      .max(SIGN_IN_SITE_MAX)
      .describe('The site, as a host name or registrable domain (e.g. shop.example), not a URL.'),
    timeoutMs: z
      .number()
      .int()
      .min(SIGN_IN_MIN_TIMEOUT_MS)
      .max(SIGN_IN_MAX_TIMEOUT_MS)
      .optional()
      .describe(`How long to wait for the person (ms); default ${SIGN_IN_DEFAULT_TIMEOUT_MS}.`),
  },
  run: (ctx, { site, timeoutMs }) =>
    Effect.gen(function* () {
      const ask = ctx.errand.requestSignIn
      if (ask === undefined) {
        return yield* new ToolRefused({
          reason: 'invalid-argument',
          message: 'This browser cannot ask the person for a sign-in here; carry on signed out.',
        })
      }
      const answer = yield* ask(site, timeoutMs)
      return text(`${answer.lent ? 'Lent' : 'Not lent'} (${answer.why}): ${answer.message}`)
    }),
})

/** `browser_request_help`. @example browserRequestHelp.run(ctx, { reason: 'A captcha I cannot solve' }) */
export const browserRequestHelp = tool({
  name: 'browser_request_help',
  title: 'Ask the person for help',
  description:
    'Ask the person to take over this browser for a moment (a captcha, a choice only they can make, a step you are ' +
    'stuck on). ' +
    'They see your reason in their live view, act on the page themselves and hand it back with an optional note; ' +
    'waits for the hand-back. ' +
    'While they drive, acting tools are refused: wait for this answer.',
  inputSchema: {
    reason: z
      .string()
      .min(1)
      .max(HELP_REASON_MAX)
      .describe('What you need the person to do, in a sentence they can act on.'),
    timeoutMs: z
      .number()
      .int()
      .min(HELP_MIN_TIMEOUT_MS)
      .max(HELP_MAX_TIMEOUT_MS)
      .optional()
      .describe(`How long to wait for the hand-back (ms); default ${HELP_DEFAULT_TIMEOUT_MS}.`),
  },
  run: (ctx, { reason, timeoutMs }) =>
    Effect.gen(function* () {
      const ask = ctx.errand.requestHelp
      if (ask === undefined) {
        return yield* new ToolRefused({
          reason: 'invalid-argument',
          message: 'Nobody can take over this browser here; carry on by yourself.',
        })
      }
      const answer = yield* ask(reason, timeoutMs)
      return text(
        answer.handedBack
          ? `The person handed the browser ` +
              `back${answer.note === null ? ' without a note' : ` with a note: ${answer.note}`}. Take a new snapshot ` +
              `before you act: the page may have changed.`
          : 'Nobody handed the browser back in time (timeout). Carry on as best you can, or ask again later.',
      )
    }),
})

/** The tools that involve the person. @example personTools.map((t) => t.name) */
export const personTools = [browserRequestSignIn, browserRequestHelp] as const
