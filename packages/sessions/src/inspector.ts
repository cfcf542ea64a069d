/** What a person sees of the XState inspector's switch (V3): the supervisor's `InspectorSwitch` answers it. */

/** What the inspector switch says about itself. */
export interface InspectorStatus {
  readonly on: boolean
  /** The page to open while on (`http://127.0.0.1:<port>/`); `null` while off. */
  readonly url: string | null
  /** The event stream while on (`ws://127.0.0.1:<port>/`); `null` while off. */
  readonly events: string | null
  /** Where the viewer loads from: the Stately inspector, a web app (needs internet access). */
  readonly viewer: string
  /** Errand actors (and the effects they run) alive now: what the inspector shows when opened. */
  readonly actors: number
  /** How to open it, in words. */
  readonly how: string
  /** What needs the network and what stays local, in words. */
  readonly network: string
  /** Why the last attempt to switch on failed, if it did. */
  readonly error: string | null
}
