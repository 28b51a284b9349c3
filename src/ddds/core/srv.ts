/** SRV target selection for the `S` flag (RFC 2782), pure: randomness is a parameter. */
import type { SrvData } from '../../dns/core/rr/record.ts';

/** The SRV fields of the record model (`core/rr/record.ts`), with the TTL when known. */
export type SrvRecord = { -readonly [K in keyof SrvData]: SrvData[K] } & { ttl?: number };

export type SrvSelection =
  | { readonly kind: 'targets'; readonly targets: readonly SrvRecord[] }
  | { readonly kind: 'unavailable'; readonly reason: string }
  | { readonly kind: 'none'; readonly reason: string };

/**
 * The order in which to try the SRV targets (`random()` in [0, 1)): lowest
 * priority first, then RFC 2782's weighted selection (zero weights first,
 * running sums, a draw in [0, sum]); a target "." means unavailable.
 */
export function selectSrv(records: readonly SrvRecord[], random: () => number): SrvSelection {
  if (records.length === 0) return { kind: 'none', reason: 'no SRV records' };
  const usable = records.filter((r) => r.target !== '.' && r.target !== '');
  if (usable.length === 0) {
    return {
      kind: 'unavailable',
      reason: 'SRV target "." : the service is decidedly not available (RFC 2782)',
    };
  }
  const priorities = [...new Set(usable.map((r) => r.priority))].sort((a, b) => a - b);
  const ordered: SrvRecord[] = [];
  for (const p of priorities) {
    const pending = usable.filter((r) => r.priority === p);
    // Zero-weight records at the beginning, otherwise keep the given order (stable).
    pending.sort((a, b) => (a.weight === 0 ? 0 : 1) - (b.weight === 0 ? 0 : 1));
    while (pending.length > 0) {
      const sum = pending.reduce((s, r) => s + r.weight, 0);
      const raw = random();
      const unit = Number.isFinite(raw) ? Math.min(Math.max(raw, 0), 1 - Number.EPSILON) : 0;
      const draw = Math.floor(unit * (sum + 1));
      let running = 0;
      const first = pending.findIndex((r) => (running += r.weight) >= draw);
      ordered.push(...pending.splice(first < 0 ? pending.length - 1 : first, 1));
    }
  }
  return { kind: 'targets', targets: ordered };
}
