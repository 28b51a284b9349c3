/**
 * Per-zone transfer-out and NOTIFY counts from the server's log events
 * (`zone-traffic.ts`), as `ctl status ZONE` and `/metrics` show them.
 */
import { describe, expect, it } from 'vitest';
import { peerAddress, ZoneTrafficBook } from '../../src/authority/zone-traffic.ts';
import { tapLogger, ZoneStatusBook } from '../../src/authority/zone-status.ts';
import { zoneFamilies } from '../../src/authority/metrics.ts';
import type { Engine } from '../../src/authority/engine.ts';

describe('per-zone transfers out and NOTIFY results', () => {
  it('takes the address of a peer, v4 or v6, without its port', () => {
    expect(peerAddress('192.0.2.1:5353')).toBe('192.0.2.1');
    expect(peerAddress('[2001:db8::1]:53')).toBe('2001:db8::1');
    expect(peerAddress('2001:db8::1')).toBe('2001:db8::1');
  });

  it('counts xfr_out by kind, peer and result, and NOTIFY answers and time-outs by peer', () => {
    const t = new ZoneTrafficBook();
    t.observe('xfr_out', { zone: 'a.', kind: 'AXFR', peer: '192.0.2.1:40000' });
    t.observe('xfr_out', { zone: 'a.', kind: 'AXFR', peer: '192.0.2.1:40001' });
    t.observe('xfr_out_failed', { zone: 'a.', kind: 'IXFR:incremental', peer: '192.0.2.2:1' });
    t.observe('notify_sent', { zone: 'a.', peer: '192.0.2.1:53', answer: 'NOERROR' });
    t.observe('notify_rejected', { zone: 'a.', peer: '192.0.2.2:53', answer: 'REFUSED' });
    t.observe('notify_failed', { zone: 'a.', peer: '192.0.2.3:53', tries: 3 });
    t.observe('zone_loaded', { zone: 'a.', peer: 'x:1' });
    expect(t.report('a.')).toEqual({
      transfersOut: [
        { kind: 'AXFR', peer: '192.0.2.1', result: 'ok', count: 2 },
        { kind: 'IXFR:incremental', peer: '192.0.2.2', result: 'failed', count: 1 },
      ],
      notify: [
        { peer: '192.0.2.1', result: 'NOERROR', count: 1 },
        { peer: '192.0.2.2', result: 'REFUSED', count: 1 },
        { peer: '192.0.2.3', result: 'timeout', count: 1 },
      ],
    });
    expect(t.report('b.')).toEqual({ transfersOut: [], notify: [] });
  });

  it('is fed by the tapped logger (warn included) and shown as metric families', () => {
    const book = new ZoneStatusBook();
    const lines: string[] = [];
    const sink = (e: string) => void lines.push(e);
    const log = tapLogger({ debug: sink, info: sink, warn: sink, error: sink }, book);
    log.info('xfr_out', { zone: 'a.', kind: 'AXFR', peer: '127.0.0.1:9' });
    log.warn('notify_rejected', { zone: 'a.', peer: '127.0.0.2:53', answer: 'REFUSED' });
    expect(lines).toEqual(['xfr_out', 'notify_rejected']);
    const engine = { zones: [] } as unknown as Engine;
    const fams = zoneFamilies(engine, book, 0);
    const out = fams.find((f) => f.name === 'lexroute_dns_xfr_out_total');
    const notify = fams.find((f) => f.name === 'lexroute_dns_notify_total');
    expect(JSON.stringify(out)).toContain('127.0.0.1');
    expect(JSON.stringify(notify)).toContain('REFUSED');
  });
});
