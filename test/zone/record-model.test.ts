/**
 * One record model for both layers (issue 19): a zone's records through
 * `recordOf` are the records the client's decoder reads from the server's
 * answers for them, field for field.
 */
import * as dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { decodeResponse } from '../../src/client/wire.ts';
import { recordOf } from '../../src/dns/core/zone/record.ts';
import type { DnsRecord } from '../../src/dns/core/rr/record.ts';
import type { ResourceRecord } from '../../src/dns/core/zone/model.ts';
import { Engine, TRANSPORT_UDP } from '../../src/authority/engine.ts';
import { loadZoneText } from '../../src/authority/zones/load.ts';

const ZONE = `$ORIGIN lex.example.
$TTL 3600
@ IN SOA ns hostmaster 7 7200 3600 1209600 300
@ IN NS ns
ns IN A 192.0.2.1
ns IN AAAA 2001:db8::1
@ IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://r.example/N2L?\\\\1!" .
@ IN NAPTR 200 10 "" "" "" next.lex.example.
_http._tcp IN SRV 10 60 8080 res1
res1 IN A 192.0.2.10
alias IN CNAME res1
txt IN TXT "a b" "\\255"
mx IN MX 10 mail
key IN DS 12345 13 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF
`;

function zone() {
  const r = loadZoneText(ZONE, 'lex.example.zone');
  if (!r.zone) throw new Error(JSON.stringify(r.diagnostics));
  return r.zone;
}

/** Every record of the zone, node by node. */
function recordsOf(z: ReturnType<typeof zone>): ResourceRecord[] {
  const out: ResourceRecord[] = [];
  for (const node of z.nodes.values())
    for (const set of node.rrsets.values()) out.push(...set.records);
  return out;
}

function answers(engine: Engine, name: string, type: string): readonly DnsRecord[] {
  const query = Buffer.from(
    dnsPacket.encode({
      type: 'query',
      id: 1,
      questions: [{ name, type: type as 'A', class: 'IN' }],
    }),
  );
  const response = engine.respond(query, TRANSPORT_UDP);
  if (!response) throw new Error(`no answer for ${name} ${type}`);
  return decodeResponse(response, 100).answers;
}

describe('recordOf: a zone record in the record model', () => {
  it('equals what the client decodes from the server answer, for each type', () => {
    const z = zone();
    const engine = new Engine([z]);
    const cases: [string, string][] = [
      ['lex.example', 'SOA'],
      ['lex.example', 'NS'],
      ['ns.lex.example', 'A'],
      ['ns.lex.example', 'AAAA'],
      ['lex.example', 'NAPTR'],
      ['_http._tcp.lex.example', 'SRV'],
      ['alias.lex.example', 'CNAME'],
      ['txt.lex.example', 'TXT'],
      ['mx.lex.example', 'MX'],
      ['key.lex.example', 'DS'],
    ];
    let compared = 0;
    for (const [name, type] of cases) {
      const fromWire = answers(engine, name, type);
      const fromZone = recordsOf(z)
        .filter((rr) => rr.owner === `${name}.` && recordOf(rr).type !== 'OPT')
        .map(recordOf)
        .filter((r) => (r.type === 'unknown' ? r.typeName : r.type) === type);
      expect(fromWire.length, `${name} ${type}`).toBeGreaterThan(0);
      expect(fromWire, `${name} ${type}`).toEqual(fromZone);
      compared += fromWire.length;
    }
    expect(compared).toBe(11);
  });

  it('reads the fields of the model', () => {
    const byType = new Map<string, DnsRecord[]>();
    for (const rr of recordsOf(zone())) {
      const r = recordOf(rr);
      byType.set(r.type, [...(byType.get(r.type) ?? []), r]);
    }
    expect(byType.get('NAPTR')).toMatchObject([
      { name: 'lex.example', order: 100, flags: 'u', services: 'http+N2L', replacement: '.' },
      { order: 200, regexp: '', replacement: 'next.lex.example.' },
    ]);
    expect(byType.get('SRV')).toMatchObject([{ port: 8080, target: 'res1.lex.example' }]);
    expect(byType.get('TXT')?.[0]).toMatchObject({
      strings: [Uint8Array.from(Buffer.from('a b')), Uint8Array.of(255)],
    });
    expect(byType.get('unknown')?.[0]).toMatchObject({ typeName: 'DS', code: 43 });
  });
});
