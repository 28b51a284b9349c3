import { describe, expect, it } from 'vitest';
import { loadZoneText } from '../../src/authority/zones/load.ts';

// Pins a crash: a zone with hundreds of thousands of out-of-zone records made
// the loader spread all their warnings into one push() call, which overflowed
// the call stack (RangeError) instead of reporting them.
describe('a flood of out-of-zone records', () => {
  it('is reported record by record, and the zone still loads', () => {
    const n = 300_000;
    const lines = [
      '$TTL 3600',
      '@ IN SOA ns1 hostmaster 1 3600 600 86400 300',
      '@ IN NS ns1',
      'ns1 IN A 192.0.2.1',
    ];
    for (let i = 0; i < n; i++) lines.push(`r${i}.elsewhere.example. IN A 192.0.2.2`);
    const result = loadZoneText(lines.join('\n') + '\n', 'seq.zone', {});
    const outOfZone = result.diagnostics.filter((d) => d.code === 'ZONE_OUT_OF_ZONE');
    expect(outOfZone).toHaveLength(n);
    expect(outOfZone[0]?.severity).toBe('warning');
    expect(result.zone?.origin).toBe('seq.');
    expect(result.zone?.size).toBe(3);
  });
});
