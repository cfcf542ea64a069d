/**
 * Tools that involve the person (P4, issue #26). `browser_request_sign_in` asks the person to
 * lend their sign-in for a site to this browser: the question appears in their live view as
 * "Allow lends your sign-in to this task" and the tool waits for Allow or Deny (at most
 * `timeoutMs`). Auto and full trust never lend, so they answer at once (L3). The result says
 * whether it was lent and what to do next; never a cookie (L7).
 *
 * @example
 * await client.callTool({ name: 'browser_request_sign_in', arguments: { site: 'shop.example' } })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import { ToolRefused } from '../errors.ts'
import { text, tool } from './tool.ts'

/** `browser_request_sign_in`. @example browserRequestSignIn.run(ctx, { site: 'shop.example' }) */
export const browserRequestSignIn = tool({
  name: 'browser_request_sign_in',
  title: 'Ask the person for a sign-in',
  description:
    "Ask the person to lend this browser their sign-in for a site (they press Allow or Deny in their live view). Use it when a site needs the person's account; waits for the answer.",
  inputSchema: {
    site: z.string().min(1).max(253).describe('The site, as a host name or registrable domain (e.g. shop.example), not a URL.'),
    timeoutMs: z.number().int().min(100).max(240_000).optional().describe('How long to wait for the person (ms); default 120000.'),
  },
  readOnly: false,
  run: (ctx, { site, timeoutMs }) =>
    Effect.gen(function* () {
      const ask = ctx.errand.requestSignIn
      if (ask === undefined) {
        return yield* new ToolRefused({ reason: 'invalid-argument', message: 'This browser cannot ask the person for a sign-in here; carry on signed out.' })
      }
      const answer = yield* ask(site, timeoutMs)
      return text(`${answer.lent ? 'Lent' : 'Not lent'} (${answer.why}): ${answer.message}`)
    }),
})

/** The tools that involve the person. @example personTools.map((t) => t.name) */
export const personTools = [browserRequestSignIn] as const
