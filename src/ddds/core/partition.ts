/**
 * The LEX partition and URN f-component on the final URL (decisions.md 6):
 * the resolver itself turns `~partition` into `#partition` (RFC 9676 section
 * 5.8); the client's f-component wins (RFC 8141 section 2.3.3, digest 15.47).
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

/** The URL with `fragment` as its fragment, else `#partition` if it has none, else unchanged. */
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
