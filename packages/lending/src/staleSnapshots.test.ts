import type { Snapshot } from '@errands/runtime'
import { describe, expect, it } from 'vitest'
import { StaleSnapshots } from './staleSnapshots.ts'

const snap = (): Snapshot => ({ storage: { cookies: [], origins: [] }, tabs: [], takenAt: 0 })
const view = (state: string, contextId: string | null) => ({ conversationId: 't', state, contextId })

describe('StaleSnapshots', () => {
  it('cleans a context healed from the stale snapshot, once per context', () => {
    const guard = new StaleSnapshots()
    const s = snap()
    guard.mark('t', s, new Set(['shop.example']), 'ctx-1')
    expect(guard.onChange(view('active', 'ctx-1'), s)).toBeUndefined() // already cleaned
    expect(guard.onChange(view('healing', null), s)).toBeUndefined()
    expect(guard.onChange(view('active', 'ctx-2'), s)).toEqual({ kind: 'context', conversationId: 't', contextId: 'ctx-2', reach: new Set(['shop.example']) })
    expect(guard.onChange(view('active', 'ctx-2'), s)).toBeUndefined()
    expect(guard.has('t')).toBe(true)
  })

  it('forgets the mark once a newer snapshot exists, or the errand closed', () => {
    const guard = new StaleSnapshots()
    const s = snap()
    guard.mark('t', s, 'all', 'ctx-1')
    expect(guard.onChange(view('active', 'ctx-1'), snap())).toBeUndefined()
    expect(guard.has('t')).toBe(false)
    guard.mark('t', s, 'all', undefined)
    expect(guard.onChange(view('closed', null), undefined)).toBeUndefined()
    expect(guard.has('t')).toBe(false)
  })

  it('cleans the sealed record when the errand is parked while a mark stands', () => {
    const guard = new StaleSnapshots()
    const s = snap()
    guard.mark('t', s, new Set(['a.example']), undefined)
    guard.mark('t', s, new Set(['b.example']), undefined)
    expect(guard.onChange(view('parked', null), undefined)).toEqual({ kind: 'record', conversationId: 't', reach: new Set(['a.example', 'b.example']) })
    expect(guard.has('t')).toBe(false)
  })

  it('needs no mark when there is no snapshot, and a new snapshot replaces an old mark', () => {
    const guard = new StaleSnapshots()
    guard.mark('t', undefined, 'all', undefined)
    expect(guard.has('t')).toBe(false)
    const old = snap()
    const next = snap()
    guard.mark('t', old, new Set(['a.example']), undefined)
    guard.mark('t', next, new Set(['b.example']), undefined)
    expect(guard.onChange(view('parked', null), undefined)).toEqual({ kind: 'record', conversationId: 't', reach: new Set(['b.example']) })
  })
})
