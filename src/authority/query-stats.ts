/**
 * Per-query counters of one engine: by transport, type, rcode, zone, and response sizes, updated in
 * place (nothing allocated once a key exists) and summed across workers at scrape time.
 */
import type { MetricFamily } from '../kit/metrics/prom.ts';
import { family, histogram } from '../kit/metrics/prom.ts';
import { typeName } from '../dns/core/rr/types.ts';
import { RCODE_NAMES } from './rcodes.ts';

/** Upper bounds of the response-size histogram, octets. */
export const SIZE_BOUNDS = [64, 128, 256, 512, 1232, 2048, 4096, 16384, 65535] as const;

/** One zone's count of responses (a box: counted in place, no Map lookup per query). */
export interface ZoneCounter {
  n: number;
}

export class QueryStats {
  /** ((transport * 4096 + rcode) * 65536 + qtype) -> responses. */
  readonly byKind = new Map<number, number>();
  /** Zone origin key -> its response counter (one Map lookup per query), and its name. */
  readonly byZone = new Map<string, ZoneCounter>();
  readonly zoneNames = new Map<string, string>();
  /** Per transport: counts per size bucket (the last is above every bound), and the sum. */
  readonly sizes = [
    new Float64Array(SIZE_BOUNDS.length + 1),
    new Float64Array(SIZE_BOUNDS.length + 1),
    new Float64Array(SIZE_BOUNDS.length + 1),
  ];
  readonly sizeSums = [0, 0, 0];

  /** The counter of a zone's responses (the same box across reloads). */
  zoneCounter(zoneKey: string, zoneName: string): ZoneCounter {
    let c = this.byZone.get(zoneKey);
    if (c === undefined) {
      c = { n: 0 };
      this.byZone.set(zoneKey, c);
      this.zoneNames.set(zoneKey, zoneName);
    }
    return c;
  }

  /** One response: by transport, type and rcode, its size, and the zone's counter (if any). */
  count(
    transport: number,
    qtype: number,
    rcode: number,
    size: number,
    zone: ZoneCounter | undefined,
  ): void {
    const k = (transport * 4096 + rcode) * 65536 + qtype;
    this.byKind.set(k, (this.byKind.get(k) ?? 0) + 1);
    if (zone !== undefined) zone.n++;
    const b = this.sizes[transport]!;
    let i = 0;
    while (i < SIZE_BOUNDS.length && size > SIZE_BOUNDS[i]!) i++;
    b[i]!++;
    this.sizeSums[transport]! += size;
  }

  families(): MetricFamily[] {
    const transports = ['udp', 'tcp', 'doh'];
    const kinds: [Record<string, string>, number][] = [];
    for (const [k, v] of this.byKind) {
      const qtype = k % 65536;
      const rest = Math.floor(k / 65536);
      const rcode = rest % 4096;
      kinds.push([
        {
          transport: transports[Math.floor(rest / 4096)]!,
          qtype: typeName(qtype),
          rcode: RCODE_NAMES[rcode] ?? `RCODE${rcode}`,
        },
        v,
      ]);
    }
    return [
      family(
        'lexroute_dns_queries_total',
        'counter',
        'DNS queries answered, by transport, query type and response code of the answer (before RRL; malformed queries that get no answer are in lexroute_dns_queries_dropped_total).',
        kinds,
      ),
      family(
        'lexroute_dns_zone_queries_total',
        'counter',
        'DNS queries answered from each zone.',
        [...this.byZone].map(([k, c]) => [{ zone: this.zoneNames.get(k) ?? k }, c.n] as const),
      ),
      histogram(
        'lexroute_dns_response_size_bytes',
        'Size of DNS responses in octets, by transport.',
        SIZE_BOUNDS,
        transports.map((t, i) => ({
          labels: { transport: t },
          counts: this.sizes[i]!,
          sum: this.sizeSums[i]!,
        })),
      ),
    ];
  }
}
