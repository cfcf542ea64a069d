/**
 * `browser_fill_password` (W2, W3; docs/passwords.md): fills the person's saved sign-in for the
 * page's site — the user name as it is, the password and the TOTP code as stand-ins the errand's
 * browser swaps for the values in requests to that site only. The agent never sees a secret: the
 * result names the site and the user name. An Errands extension beside Playwright MCP's tools
 * (docs/mcp.md), the same call as `POST /v1/fill-password`.
 *
 * @example
 * await client.callTool({ name: 'browser_fill_password', arguments: { password: 'e12', username: 'e10' } })
 */
import { Effect } from 'effect'
import { z } from 'zod'
import { ToolRefused } from '../errors.ts'
import { text, tool } from './tool.ts'

const ref = (what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/)
    .describe(`The ref of the ${what} field in the page snapshot (e.g. e12).`)

/** `browser_fill_password`. @example browserFillPassword.run(ctx, { password: 'e12' }) */
export const browserFillPassword = tool({
  name: 'browser_fill_password',
  title: "Fill the person's saved password",
  description:
    "Fill the person's saved sign-in for this page's site into a login form: the page gets stand-ins that the " +
    'browser replaces with the real values only in requests to that site, so you never see the password. ' +
    'Refused on any other site or a look-alike (WrongSite). If the sign-in then fails, ask the person for help.',
  inputSchema: {
    password: ref('password'),
    username: ref('user name').optional(),
    totp: ref('one-time code').optional(),
    site: z.string().min(1).max(2048).optional().describe('The saved sign-in’s site (default: the page’s).'),
    user: z.string().max(512).optional().describe('Which saved user name, when several are saved for the site.'),
  },
  run: (ctx, { password, username, totp, site, user }) =>
    Effect.gen(function* () {
      const fill = ctx.errand.fillPassword
      if (fill === undefined) {
        return yield* new ToolRefused({
          reason: 'invalid-argument',
          message: 'This browser keeps no saved passwords; ask the person to sign in (browser_request_help).',
        })
      }
      const at = (r: string | undefined) => (r === undefined ? undefined : `aria-ref=${r}`)
      const done = yield* fill({ password: at(password)!, username: at(username), totp: at(totp), site, user })
      return text(
        `Filled the saved sign-in for ${done.site} (user ${done.user}, ${done.filled} fields) with stand-ins; ` +
          'submit the form as usual. Take a new snapshot before you act.',
      )
    }),
})

/** The password tools. @example passwordTools.map((t) => t.name) */
export const passwordTools = [browserFillPassword] as const
