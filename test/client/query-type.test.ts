/**
 * The client's query types are the project's (core/rr/types.ts `QueryType`),
 * not dns-packet's `RecordType`, and the same set (issue 19): a resolver
 * written against either type compiles with the other, and every name is a
 * mnemonic of the one type table.
 */
import type { RecordType } from 'dns-packet';
import { describe, expect, it } from 'vitest';
import type { DnsLookupResult, DnsResolver, QueryType } from '../../src/client/index.ts';
import { TYPE_CODES, type TypeMnemonic } from '../../src/dns/core/rr/types.ts';

/** True when A and B are the same set of strings (checked by the compiler). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameAsDnsPacket: Same<QueryType, RecordType> = true;
const inTheTable: [QueryType] extends [TypeMnemonic] ? true : false = true;

/** Every name dns-packet's RecordType has, as a value the compiler checks against both types. */
const NAMES = [
  'A',
  'AAAA',
  'AFSDB',
  'APL',
  'AXFR',
  'CAA',
  'CDNSKEY',
  'CDS',
  'CERT',
  'CNAME',
  'DNAME',
  'DHCID',
  'DLV',
  'DNSKEY',
  'DS',
  'HINFO',
  'HIP',
  'IXFR',
  'IPSECKEY',
  'KEY',
  'KX',
  'LOC',
  'MX',
  'NAPTR',
  'NS',
  'NSEC',
  'NSEC3',
  'NSEC3PARAM',
  'NULL',
  'OPT',
  'PTR',
  'RRSIG',
  'RP',
  'SIG',
  'SOA',
  'SRV',
  'SSHFP',
  'TA',
  'TKEY',
  'TLSA',
  'TSIG',
  'TXT',
  'URI',
] as const satisfies readonly RecordType[] & readonly QueryType[];

describe('query types (core/rr/types.ts QueryType)', () => {
  it('are the set of dns-packet’s RecordType, all in the type table', () => {
    expect(sameAsDnsPacket).toBe(true);
    expect(inTheTable).toBe(true);
    for (const n of NAMES) expect(TYPE_CODES.get(n), n).toBeGreaterThan(0);
  });

  it('a resolver typed with dns-packet’s RecordType is a DnsResolver, and the other way', async () => {
    const asked: string[] = [];
    const withRecordType = {
      lookup(qname: string, qtype: RecordType): Promise<DnsLookupResult> {
        asked.push(`${qname} ${qtype}`);
        // The result carries the type as asked: a RecordType is a QueryType.
        return Promise.resolve({
          kind: 'nodata',
          qname,
          qtype,
          name: qname,
          records: [],
          cnames: [],
          ttl: -1,
          server: 'test',
          protocol: 'udp',
          rttMs: 0,
          ignored: 0,
          additionals: [],
        });
      },
    };
    const resolver: DnsResolver = withRecordType;
    const q: RecordType = 'NAPTR';
    await resolver.lookup('lex.urn.arpa.', q);
    // A caller's QueryType goes where dns-packet's type is expected.
    const back: RecordType = 'SRV' as QueryType;
    await withRecordType.lookup('x.', back);
    expect(asked).toEqual(['lex.urn.arpa. NAPTR', 'x. SRV']);
  });
});
