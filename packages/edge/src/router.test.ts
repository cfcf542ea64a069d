import { describe, expect, it } from 'vitest'
import { Router } from './router.ts'

const router = new Router([
  { method: 'GET', path: '/v1/tabs', value: 'list' },
  { method: 'POST', path: '/v1/tabs', value: 'open' },
  { method: 'POST', path: '/v1/tabs/:id/activate', value: 'activate' },
  { method: 'DELETE', path: '/v1/tabs/:id', value: 'close' },
])

describe('the tiny router', () => {
  it('matches method and path, with decoded parameters', () => {
    expect(router.match('GET', '/v1/tabs')).toEqual({ _tag: 'found', value: 'list', params: {} })
    expect(router.match('POST', '/v1/tabs/a%2Db/activate')).toEqual({
      _tag: 'found',
      value: 'activate',
      params: { id: 'a-b' },
    })
    expect(router.match('DELETE', '/v1/tabs/t1')).toMatchObject({ value: 'close', params: { id: 't1' } })
    expect(router.match('HEAD', '/v1/tabs')).toMatchObject({ value: 'list' })
  })

  it('says what is missing: the path, or the method (with what is allowed)', () => {
    expect(router.match('GET', '/v1/tab')).toEqual({ _tag: 'not-found' })
    expect(router.match('GET', '/v1/tabs/')).toEqual({ _tag: 'not-found' })
    expect(router.match('GET', '/v1/tabs/t1/activate/x')).toEqual({ _tag: 'not-found' })
    expect(router.match('PUT', '/v1/tabs')).toEqual({ _tag: 'method-not-allowed', allow: ['GET', 'POST'] })
    expect(router.match('GET', '/v1/tabs/%zz')).toEqual({ _tag: 'bad-path' })
  })
})
