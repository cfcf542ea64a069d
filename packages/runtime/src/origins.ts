/**
 * The origin of a URL, as both runtimes (and the fake) key a context's localStorage by it.
 *
 * @example
 * originOf('http://shop.example:8080/a?b') // 'http://shop.example:8080'
 * originOf('about:blank') // undefined (opaque: it has no storage of its own)
 */
export const originOf = (url: string): string | undefined => {
  try {
    const origin = new URL(url).origin
    return origin === 'null' ? undefined : origin
  } catch {
    return undefined
  }
}
