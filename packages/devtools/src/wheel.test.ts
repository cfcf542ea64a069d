import { acts, DEVTOOLS_READ_METHODS } from '@errands/runtime'
import { describe, expect, it } from 'vitest'
import { HELP_DEFAULT_TIMEOUT_MS, helpParams, WheelGate } from './wheel.ts'
import type { Command } from './connection.ts'
import { knownMethod, METHODS_BY_DOMAIN } from './protocol.ts'

const command = (id: number, method: string, params: Record<string, unknown> = {}): Command => ({
  id,
  method,
  params,
  sessionId: 'S1',
})

describe('what a DevTools client may do while a person drives (P1, deny by default)', () => {
  it('holds what acts on the page, what runs script, intercepts or answers requests; passes reads', () => {
    for (const m of [
      'Input.dispatchMouseEvent',
      'Input.insertText',
      'Page.navigate',
      'Page.reload',
      'DOM.setFileInputFiles',
      'Target.createTarget',
      'Target.closeTarget',
      'Runtime.callFunctionOn',
      // What an attack got through the old list of acting methods (docs/adr/0040-person-wheel-deny-by-default.md):
      'Debugger.setBreakpointByUrl',
      'Page.addScriptToEvaluateOnNewDocument',
      'CSS.setStyleTexts',
      'CSS.addRule',
      'CSS.createStyleSheet',
      'Fetch.enable',
      'Fetch.fulfillRequest',
      'Fetch.continueRequest',
      'Runtime.addBinding',
      'Overlay.highlightRect',
    ]) {
      expect(acts('devtools', m, {}), m).toBe(true)
    }
    for (const m of [
      'DOM.getDocument',
      'Page.captureScreenshot',
      'Runtime.getProperties',
      'Page.getNavigationHistory',
      'Runtime.enable',
      'Target.attachToTarget',
      'Runtime.runIfWaitingForDebugger',
      'Errands.getFilesFolder',
      'Errands.requestHelp',
    ]) {
      expect(acts('devtools', m, {}), m).toBe(false)
    }
    expect(acts('devtools', 'Runtime.evaluate', { expression: 'document.title' })).toBe(true)
    expect(acts('devtools', 'Runtime.evaluate', { expression: 'document.title', throwOnSideEffect: true })).toBe(false)
    expect(
      acts('devtools', 'Runtime.callFunctionOn', { functionDeclaration: '() => 1', throwOnSideEffect: true }),
    ).toBe(false)
    expect(acts('devtools', 'Page.captureScreenshot', { captureBeyondViewport: true })).toBe(true)
  })

  it('holds a method nobody named: one Chromium adds later is held, not let through', () => {
    expect(acts('devtools', 'Page.someMethodOfNextYear', {})).toBe(true)
    expect(acts('devtools', 'NewDomain.enable', {})).toBe(true)
    // Of every method Chromium knows today, only the named reads pass.
    const known = Object.entries(METHODS_BY_DOMAIN).flatMap(([d, names]) => names.split(' ').map((n) => `${d}.${n}`))
    const passing = known.filter((m) => !acts('devtools', m, {}))
    expect(passing.sort()).toEqual(DEVTOOLS_READ_METHODS.filter((m) => !m.startsWith('Errands.')).sort())
  })

  it('names only methods Chromium knows as reads', () => {
    expect(DEVTOOLS_READ_METHODS.filter((m) => !m.startsWith('Errands.') && !knownMethod(m))).toEqual([])
  })

  it(
    'holds in order while driving, announces the take and the hand-back with its note, then sends what it ' + 'held',
    () => {
      const sent: Array<string> = []
      const gate = new WheelGate(
        (c) => sent.push(`${c.id} ${c.method}`),
        (method, params) => sent.push(`${method} ${JSON.stringify(params)}`),
        (driving) => sent.push(driving ? 'suspend' : 'restore'),
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
        'suspend',
        'Errands.wheelTaken {}',
        'restore',
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
