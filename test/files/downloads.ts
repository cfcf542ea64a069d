/**
 * What the file tests ask a session's host about its downloads (issue #25): the listing, and one
 * file's bytes.
 *
 * @example
 * expect((await downloadsOf(agent)).map((f) => f.name)).toEqual(['report.pdf'])
 * expect((await bytesOf(agent, 'report.pdf'))?.equals(REPORT)).toBe(true)
 */
import type { TestHost } from '../host/harness.ts'

/** A session's typed client (`host.v1(key)`). */
export type Agent = ReturnType<TestHost['v1']>

/** `GET /v1/session/downloads`; throws on an error answer. */
export const downloadsOf = async (agent: Agent) => {
  const reply = await agent.downloads()
  if (!reply.ok) throw new Error(`downloads: ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply.body.downloads
}

/** `GET /v1/session/downloads/:name`: the bytes, or undefined when it is not there. */
export const bytesOf = async (agent: Agent, name: string) => {
  const reply = await agent.download({ params: { name } })
  return reply.ok ? Buffer.from(reply.body) : undefined
}
