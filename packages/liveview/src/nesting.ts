/**
 * The conversation list as the live view shows it (V1, E1): each conversation followed by the
 * helpers it fanned out (`parent`), theirs after them, at one more level of indent. A helper
 * whose parent is not in the list stands at the top level; the order is otherwise kept.
 *
 * @example
 * nested([{ conversationId: 'a/h' , parent: 'a' }, { conversationId: 'a' }])
 * // [{ item: { conversationId: 'a' }, depth: 0 }, { item: { conversationId: 'a/h', parent: 'a' }, depth: 1 }]
 */
export const nested = <C extends { readonly conversationId: string; readonly parent?: string | undefined }>(
  conversations: ReadonlyArray<C>,
): Array<{ readonly item: C; readonly depth: number }> => {
  const ids = new Set(conversations.map((c) => c.conversationId))
  const children = new Map<string, Array<C>>()
  for (const c of conversations) {
    if (c.parent !== undefined && c.parent !== c.conversationId && ids.has(c.parent)) {
      children.set(c.parent, [...(children.get(c.parent) ?? []), c])
    }
  }
  const out: Array<{ readonly item: C; readonly depth: number }> = []
  const placed = new Set<string>()
  const place = (c: C, depth: number) => {
    if (placed.has(c.conversationId)) return // a cycle of parents: each shown once
    placed.add(c.conversationId)
    out.push({ item: c, depth })
    for (const child of children.get(c.conversationId) ?? []) place(child, depth + 1)
  }
  for (const c of conversations) {
    const hasParent = c.parent !== undefined && c.parent !== c.conversationId && ids.has(c.parent)
    if (!hasParent) place(c, 0)
  }
  // Parents in a cycle have no top: show them at the top level, in order.
  for (const c of conversations) place(c, 0)
  return out
}
