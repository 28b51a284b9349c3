/** Per-zone transfer-out and NOTIFY results by peer address, from this thread's log events. */
import type { LogFields } from './log.ts';

/** Counts by label set, for one zone. */
export interface ZoneTraffic {
  /** `kind|peer|result` -> count; kind AXFR, IXFR:incremental, IXFR:full, IXFR:current. */
  readonly transfersOut: Map<string, number>;
  /** `peer|result` -> count; result NOERROR, REFUSED, NOTAUTH, ... or timeout. */
  readonly notify: Map<string, number>;
}

/** `addr:port` or `[v6]:port` -> the address. */
export function peerAddress(peer: string): string {
  const v6 = /^\[(.*)\]:\d+$/.exec(peer);
  if (v6) return v6[1]!;
  const v4 = /^([^:]*):\d+$/.exec(peer);
  return v4 ? v4[1]! : peer;
}

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

export class ZoneTrafficBook {
  /** By zone origin. */
  readonly zones = new Map<string, ZoneTraffic>();

  private of(zone: string): ZoneTraffic {
    let t = this.zones.get(zone);
    if (!t) this.zones.set(zone, (t = { transfersOut: new Map(), notify: new Map() }));
    return t;
  }

  observe(event: string, f: LogFields): void {
    const zone = typeof f.zone === 'string' ? f.zone : undefined;
    const peer = typeof f.peer === 'string' ? peerAddress(f.peer) : undefined;
    if (zone === undefined || peer === undefined) return;
    if (event === 'xfr_out' || event === 'xfr_out_failed') {
      const kind = typeof f.kind === 'string' ? f.kind : 'unknown';
      bump(this.of(zone).transfersOut, `${kind}|${peer}|${event === 'xfr_out' ? 'ok' : 'failed'}`);
    } else if (event === 'notify_sent' || event === 'notify_rejected') {
      bump(this.of(zone).notify, `${peer}|${typeof f.answer === 'string' ? f.answer : 'unknown'}`);
    } else if (event === 'notify_failed') {
      bump(this.of(zone).notify, `${peer}|timeout`);
    }
  }

  /** A zone's counts as JSON (for `ctl status ZONE`). */
  report(zone: string): {
    transfersOut: { kind: string; peer: string; result: string; count: number }[];
    notify: { peer: string; result: string; count: number }[];
  } {
    const t = this.zones.get(zone);
    const out = [...(t?.transfersOut ?? [])].map(([k, count]) => {
      const [kind, peer, result] = k.split('|') as [string, string, string];
      return { kind, peer, result, count };
    });
    const notify = [...(t?.notify ?? [])].map(([k, count]) => {
      const [peer, result] = k.split('|') as [string, string];
      return { peer, result, count };
    });
    return { transfersOut: out, notify };
  }
}
