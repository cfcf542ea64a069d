/**
 * A signed-in main context for lending's unit tests: cookies and localStorage of a handful of
 * sites whose values all contain `secret`, so a scan can prove none of them leaked (L7).
 *
 * @example
 * signInMain(memory)
 * names(yield* Effect.orDie(memory.storageState(MAIN_CONTEXT))) // ['gh@github.io', ...]
 */
import { cookie, MAIN_CONTEXT, type MemoryRuntime, type StorageState } from '@errands/runtime'

/**
 * Every secret value {@link signInMain} puts into the main context.
 *
 * @example
 * for (const secret of MAIN_SECRETS) expect(logs).not.toContain(secret)
 */
export const MAIN_SECRETS: ReadonlyArray<string> = [
  'shop-secret',
  'shop-pref-secret',
  'shop-ls-secret',
  'other-secret',
  'other-ls-secret',
  'alice-secret',
  'bob-secret',
  'github-io-secret',
]

/**
 * Signs the person's main context in to shop.example (two hosts), other.example,
 * alice.github.io, bob.github.io and github.io itself.
 *
 * @example
 * signInMain(memory)
 */
export const signInMain = (memory: MemoryRuntime): void => {
  memory.visit(MAIN_CONTEXT, 'https://a.shop.example/', {
    setCookies: [cookie('sid', 'shop-secret', '.shop.example'), cookie('pref', 'shop-pref-secret', 'a.shop.example')],
    localStorage: { cart: 'shop-ls-secret' },
  })
  memory.visit(MAIN_CONTEXT, 'https://other.example/', {
    setCookies: [cookie('sid', 'other-secret', 'other.example')],
    localStorage: { cart: 'other-ls-secret' },
  })
  memory.visit(MAIN_CONTEXT, 'https://alice.github.io/', {
    setCookies: [cookie('sid', 'alice-secret', 'alice.github.io')],
  })
  memory.visit(MAIN_CONTEXT, 'https://bob.github.io/', { setCookies: [cookie('sid', 'bob-secret', 'bob.github.io')] })
  memory.visit(MAIN_CONTEXT, 'https://github.io/', { setCookies: [cookie('gh', 'github-io-secret', 'github.io')] })
}

/**
 * The cookies of a state as sorted `name@domain` strings.
 *
 * @example
 * names({ cookies: [cookie('sid', 'v', '.shop.example')], origins: [] }) // ['sid@.shop.example']
 */
export const names = (state: StorageState): ReadonlyArray<string> =>
  state.cookies.map((c) => `${c.name}@${c.domain}`).sort()

/**
 * The localStorage origins of a state, sorted.
 *
 * @example
 * origins(state) // ['https://a.shop.example']
 */
export const origins = (state: StorageState): ReadonlyArray<string> => state.origins.map((o) => o.origin).sort()
