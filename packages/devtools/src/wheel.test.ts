import { describe, expect, it } from 'vitest'
import { ACTING_METHODS, actsOnPage, HELP_DEFAULT_TIMEOUT_MS, helpParams, WheelGate } from './wheel.ts'
import type { Command } from './connection.ts'
import { knownMethod } from './protocol.ts'

const command = (id: number, method: string, params: Record<string, unknown> = {}): Command => ({
  id,
  method,
  params,
  sessionId: 'S1',
})

describe('what a DevTools client may do while a person drives (#26)', () => {
  it('holds what acts on the page, passes reads and the answers a page waits for', () => {
    for (const m of [
      'Input.dispatchMouseEvent',
      'Input.insertText',
      'Page.navigate',
      'Page.reload',
      'DOM.setFileInputFiles',
      'Target.createTarget',
      'Target.closeTarget',
      'Runtime.callFunctionOn',
    ]) {
      expect(actsOnPage(m, {}), m).toBe(true)
    }
    for (const m of [
      'DOM.getDocument',
      'Page.captureScreenshot',
      'Runtime.getProperties',
      'Page.getNavigationHistory',
      'Runtime.enable',
      'Target.attachToTarget',
      'Fetch.continueRequest',
    ]) {
      expect(actsOnPage(m, {}), m).toBe(false)
    }
    expect(actsOnPage('Runtime.evaluate', { expression: 'document.title' })).toBe(true)
    expect(actsOnPage('Runtime.evaluate', { expression: 'document.title', throwOnSideEffect: true })).toBe(false)
    expect(actsOnPage('Runtime.callFunctionOn', { functionDeclaration: '() => 1', throwOnSideEffect: true })).toBe(
      false,
    )
  })

  it('names only methods Chromium knows', () => {
    expect([...ACTING_METHODS].filter((m) => !knownMethod(m))).toEqual([])
  })

  it(
    'holds in order while driving, announces the take and the hand-back with its note, then sends what it ' + 'held',
    () => {
      const sent: Array<string> = []
      const gate = new WheelGate(
        (c) => sent.push(`${c.id} ${c.method}`),
        (method, params) => sent.push(`${method} ${JSON.stringify(params)}`),
      )
      expect(gate.hold(command(1, 'Page.navigate'))).toBe(false)
      gate.set(true)
      expect(gate.hold(command(2, 'Page.navigate'))).toBe(true)
      expect(gate.hold(command(3, 'DOM.getDocument'))).toBe(false)
      expect(gate.hold(command(4, 'Input.dispatchKeyEvent'))).toBe(true)
      expect(gate.heldCount).toBe(2)
      gate.noteOf('done')
      gate.set(false)
      expect(sent).toEqual([
        'Errands.wheelTaken {}',
        'Errands.handedBack {"note":"done"}',
        '2 Page.navigate',
        '4 Input.dispatchKeyEvent',
      ])
      // A note heard when nobody drives is not kept for a later hand-back.
      gate.noteOf('stale')
      gate.set(true)
      gate.set(false)
      expect(sent.at(-1)).toBe('Errands.handedBack {"note":null}')
    },
  )

  it('checks Errands.requestHelp as POST /v1/session/help does', () => {
    expect(helpParams({ reason: 'a captcha' })).toEqual({ reason: 'a captcha', timeoutMs: HELP_DEFAULT_TIMEOUT_MS })
    expect(helpParams({ reason: 'a captcha', timeoutMs: 100 })).toEqual({ reason: 'a captcha', timeoutMs: 100 })
    expect(helpParams({ reason: 'a', timeoutMs: 99 })).toMatch(/timeoutMs/)
    expect(helpParams({ reason: 'a', timeoutMs: 1.5 })).toMatch(/timeoutMs/)
    expect(helpParams({ reason: 'a', timeoutMs: '100' })).toMatch(/timeoutMs/)
    expect(helpParams({ reason: 7 })).toMatch(/reason/)
    expect(helpParams({ reason: 'x'.repeat(500) })).toMatchObject({ reason: 'x'.repeat(500) })
  })
})
