import { describe, expect, it } from 'vitest'
import type { Command } from './connection.ts'
import { DriveSuspension } from './drive.ts'

const command = (method: string, params: Record<string, unknown> = {}, sessionId = 'S1'): Command => ({
  id: 1,
  method,
  params,
  sessionId,
})

const suspension = () => {
  const sent: Array<string> = []
  const drive = new DriveSuspension((method, params, sessionId) => {
    sent.push(`${sessionId} ${method} ${JSON.stringify(params)}`)
    return Promise.resolve({})
  })
  return { sent, drive }
}

describe('what a client set up before a person took the wheel (P1, drive.ts)', () => {
  it('continues the requests it was shown and had not answered, and answers every new one itself', () => {
    const { sent, drive } = suspension()
    expect(drive.event('S1', 'Fetch.requestPaused', { requestId: 'r1' }, false)).toBe(false)
    expect(drive.event('S1', 'Fetch.requestPaused', { requestId: 'r2' }, false)).toBe(false)
    expect(drive.event('S2', 'Fetch.authRequired', { requestId: 'r3' }, false)).toBe(false)
    drive.sent(command('Fetch.fulfillRequest', { requestId: 'r2', responseCode: 200 }))
    drive.take()
    expect(sent).toEqual([
      'S1 Fetch.continueRequest {"requestId":"r1"}',
      'S2 Fetch.continueWithAuth {"requestId":"r3","authChallengeResponse":{"response":"Default"}}',
    ])
    sent.length = 0
    // During the drive the client never sees a paused request: it goes on as it came.
    expect(drive.event('S1', 'Fetch.requestPaused', { requestId: 'r4' }, true)).toBe(true)
    expect(sent).toEqual(['S1 Fetch.continueRequest {"requestId":"r4"}'])
    // Other events are the client's.
    expect(drive.event('S1', 'Network.requestWillBeSent', { requestId: 'r5' }, true)).toBe(false)
  })

  it("switches the client's breakpoints off for the drive, resumes its pause, and puts its switches back", () => {
    const { sent, drive } = suspension()
    drive.sent(command('Debugger.enable'))
    drive.sent(command('Debugger.enable', {}, 'S2'))
    drive.sent(command('Debugger.setSkipAllPauses', { skip: true }, 'S2'))
    drive.sent(command('Debugger.enable', {}, 'S3'))
    drive.sent(command('Debugger.disable', {}, 'S3'))
    expect(drive.event('S1', 'Debugger.paused', {}, false)).toBe(false)
    drive.take()
    expect(sent).toEqual([
      'S1 Debugger.setBreakpointsActive {"active":false}',
      'S1 Debugger.setSkipAllPauses {"skip":true}',
      'S2 Debugger.setBreakpointsActive {"active":false}',
      'S2 Debugger.setSkipAllPauses {"skip":true}',
      'S1 Debugger.resume {}',
    ])
    sent.length = 0
    expect(drive.event('S2', 'Debugger.paused', {}, true)).toBe(true)
    expect(sent).toEqual(['S2 Debugger.resume {}'])
    sent.length = 0
    drive.handBack()
    expect(sent).toEqual([
      'S1 Debugger.setBreakpointsActive {"active":true}',
      'S1 Debugger.setSkipAllPauses {"skip":false}',
      'S2 Debugger.setBreakpointsActive {"active":true}',
      'S2 Debugger.setSkipAllPauses {"skip":true}',
    ])
  })

  it('forgets a session that went', () => {
    const { sent, drive } = suspension()
    drive.sent(command('Debugger.enable'))
    drive.event('S1', 'Fetch.requestPaused', { requestId: 'r1' }, false)
    drive.forget('S1')
    drive.take()
    expect(sent).toEqual([])
  })
})
