/**
 * Split a LEX URN reference into document name and partition id (RFC 9676
 * section 10.3): only a literal `~` (not `%7E`, digest 15.44) in the assigned-name.
 */
import type { PartitionSplit } from './types.ts';

export function splitPartition(text: string): PartitionSplit {
  const n = text.length;
  let i = 0;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7e) break;
    if (c === 0x3f || c === 0x23) return { document: text };
  }
  if (i >= n) return { document: text };
  let end = i + 1;
  while (end < n && text.charCodeAt(end) !== 0x3f && text.charCodeAt(end) !== 0x23) end++;
  return { document: text.slice(0, i) + text.slice(end), partition: text.slice(i + 1, end) };
}
