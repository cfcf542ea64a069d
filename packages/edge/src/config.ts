import { Schema } from 'effect'

/**
 * A whole number from a string, within `[min, max]`: the decoder of every `ERRANDS_*` number
 * (the supervisor's, the host's, the cluster's; ADR 0022). Whatever is wrong — not a number, a
 * fraction, out of range — the message is `text`, by default the range in words. Never clamps.
 *
 * @example
 * Schema.Config('ERRANDS_CLUSTER_SHARDS', intBetween(1, 4096, 'must be a whole number from 1 to 4096 (the same on
 * every runner)'))
 * Schema.decodeUnknownEither(intBetween(1, 32))('33') // Left: "must be a whole number from 1 to 32"
 */
export const intBetween = (
  min: number,
  max: number,
  text = `must be a whole number from ${min} to ${max}`,
): Schema.Schema<number, string> =>
  Schema.NumberFromString.pipe(
    Schema.annotations({ message: () => text }),
    Schema.int({ message: () => text }),
    Schema.between(min, max, { message: () => text }),
  )
