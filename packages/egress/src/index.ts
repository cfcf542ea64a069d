/**
 * `@errands/egress` — the one door every context's connections leave through (G3). Placeholder
 * until the egress lands; see issue "Containment that holds against a hostile page".
 */
export {}
