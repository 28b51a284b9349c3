/**
 * Applying the LEX partition and the URN f-component to the final URL
 * (decisions.md item 6).
 *
 * - RFC 9676 section 5.8: the resolver turns `~partition` into
 *   `#partition` itself; the client appends `#partition` only when the URL it
 *   received has no fragment.
 * - RFC 8141 section 2.3.3: the f-component is applied by the client to the
 *   single locator; an explicit `#f` wins over `~partition` (digest 15.47).
 */

export interface PartitionOptions {
  /** The URN's f-component (without '#'), if the input had one. */
  fragment?: string | undefined;
  /** The LEX partition id (after '~'), if the URN had one. */
  partition?: string | undefined;
}

export interface PartitionResult {
  readonly url: string;
  /** What was done, for the trace. */
  readonly applied: 'fragment' | 'partition' | 'kept' | 'none';
}

/**
 * Returns the URL with the right fragment:
 * - `fragment` given: it replaces any fragment the URL has;
 * - else `partition` given and the URL has no fragment: `#partition` appended;
 * - else the URL unchanged.
 */
export function applyPartitionDetailed(url: string, options: PartitionOptions): PartitionResult {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  if (options.fragment !== undefined) {
    return { url: `${base}#${options.fragment}`, applied: 'fragment' };
  }
  if (options.partition !== undefined && options.partition !== '') {
    if (hash >= 0) return { url, applied: 'kept' };
    return { url: `${url}#${options.partition}`, applied: 'partition' };
  }
  return { url, applied: 'none' };
}

export function applyPartition(url: string, options: PartitionOptions): string {
  return applyPartitionDetailed(url, options).url;
}
