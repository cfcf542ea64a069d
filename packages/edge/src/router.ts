/**
 * The one router of the declared fronts: method + path pattern (`/v1/tabs/:id/activate`) → route.
 * The host has ~40 fixed routes and the live view ~20, so a linear scan of pre-split patterns is all
 * it needs (docs/adr/0006).
 *
 * @example
 * const router = new Router([{ method: 'GET', path: '/v1/tabs/:id', value: 'tab' }])
 * router.match('GET', '/v1/tabs/t1') // { _tag: 'found', value: 'tab', params: { id: 't1' } }
 */

/** One route: a method, a pattern whose `:name` segments capture one path segment each, and its value. */
export interface RouteDef<V> {
  readonly method: string
  readonly path: string
  readonly value: V
}

/** What {@link Router.match} finds. */
export type Match<V> =
  | { readonly _tag: 'found'; readonly value: V; readonly params: Readonly<Record<string, string>> }
  | { readonly _tag: 'method-not-allowed'; readonly allow: ReadonlyArray<string> }
  | { readonly _tag: 'not-found' }
  | { readonly _tag: 'bad-path' }

interface Compiled<V> {
  readonly method: string
  readonly segments: ReadonlyArray<{ readonly literal: string } | { readonly param: string }>
  readonly value: V
}

const split = (path: string): Array<string> => path.split('/').slice(1)

/**
 * Matches requests against a fixed table of routes.
 *
 * @example
 * new Router(routes).match(request.method, new URL(request.url).pathname)
 */
export class Router<V> {
  private readonly routes: ReadonlyArray<Compiled<V>>

  constructor(routes: ReadonlyArray<RouteDef<V>>) {
    this.routes = routes.map((r) => ({
      method: r.method,
      value: r.value,
      segments: split(r.path).map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s })),
    }))
  }

  /**
   * The route for `method` and `pathname` (percent-decoded parameters), or why there is none.
   * A parameter that does not decode (`%zz`) is a `bad-path`.
   *
   * @example
   * router.match('DELETE', '/v1/tabs/t2')
   */
  match(method: string, pathname: string): Match<V> {
    const parts = split(pathname)
    const allow = new Set<string>()
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue
      const params: Record<string, string> = {}
      let ok = true
      for (let i = 0; i < parts.length && ok; i++) {
        const segment = route.segments[i]!
        const part = parts[i]!
        if ('literal' in segment) ok = segment.literal === part
        else {
          if (part === '') ok = false
          else {
            try {
              params[segment.param] = decodeURIComponent(part)
            } catch {
              return { _tag: 'bad-path' }
            }
          }
        }
      }
      if (!ok) continue
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) {
        return { _tag: 'found', value: route.value, params }
      }
      allow.add(route.method)
    }
    return allow.size > 0 ? { _tag: 'method-not-allowed', allow: [...allow].sort() } : { _tag: 'not-found' }
  }
}
