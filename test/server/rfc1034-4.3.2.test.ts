/**
 * RFC 1034 section 4.3.2 (the authoritative algorithm) with RFC 4592
 * wildcards, RFC 6672 DNAME and RFC 8020 empty non-terminals, as tables run
 * against the real server over UDP and TCP on 127.0.0.1.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { names, query, startTestServer, TEST_ZONES, type Harness } from './harness.ts';

interface Row {
  readonly why: string;
  readonly qname: string;
  readonly qtype: string;
  readonly rcode: number;
  readonly aa: boolean;
  /** "owner TYPE" per record, order-insensitive. */
  readonly answer: readonly string[];
  readonly authority: readonly string[];
  readonly additional?: readonly string[];
}

const SOA = ['example.test SOA'];
const ROWS: readonly Row[] = [
  // Step 3a: exact match.
  {
    why: '3a exact match',
    qname: 'www.example.test',
    qtype: 'A',
    rcode: 0,
    aa: true,
    answer: ['www.example.test A'],
    authority: [],
  },
  {
    why: '3a apex SOA',
    qname: 'example.test',
    qtype: 'SOA',
    rcode: 0,
    aa: true,
    answer: ['example.test SOA'],
    authority: [],
  },
  {
    why: '3a apex NS, in-zone address in additional',
    qname: 'example.test',
    qtype: 'NS',
    rcode: 0,
    aa: true,
    answer: ['example.test NS', 'example.test NS'],
    authority: [],
    additional: ['ns1.example.test A'],
  },
  {
    why: '3a MX with the exchange address in additional',
    qname: 'example.test',
    qtype: 'MX',
    rcode: 0,
    aa: true,
    answer: ['example.test MX'],
    authority: [],
    additional: ['mail.example.test A', 'mail.example.test AAAA'],
  },
  {
    why: '3a name exists, type does not: NODATA',
    qname: 'www.example.test',
    qtype: 'MX',
    rcode: 0,
    aa: true,
    answer: [],
    authority: SOA,
  },
  {
    why: 'case-insensitive match (RFC 4343)',
    qname: 'WwW.ExAmPlE.TeSt',
    qtype: 'A',
    rcode: 0,
    aa: true,
    answer: ['www.example.test A'],
    authority: [],
  },
  // CNAME handling.
  {
    why: 'CNAME followed in the zone',
    qname: 'alias.example.test',
    qtype: 'A',
    rcode: 0,
    aa: true,
    answer: ['alias.example.test CNAME', 'www.example.test A'],
    authority: [],
  },
  {
    why: 'CNAME chain of two',
    qname: 'alias2.example.test',
    qtype: 'TXT',
    rcode: 0,
    aa: true,
    answer: ['alias.example.test CNAME', 'alias2.example.test CNAME', 'www.example.test TXT'],
    authority: [],
  },
  {
    why: 'QTYPE CNAME is not followed',
    qname: 'alias.example.test',
    qtype: 'CNAME',
    rcode: 0,
    aa: true,
    answer: ['alias.example.test CNAME'],
    authority: [],
  },
  {
    why: 'CNAME target NODATA',
    qname: 'alias.example.test',
    qtype: 'MX',
    rcode: 0,
    aa: true,
    answer: ['alias.example.test CNAME'],
    authority: SOA,
  },
  {
    why: 'CNAME to a missing name: NXDOMAIN (RFC 6604)',
    qname: 'dangling.example.test',
    qtype: 'A',
    rcode: 3,
    aa: true,
    answer: ['dangling.example.test CNAME'],
    authority: SOA,
  },
  {
    why: 'CNAME out of every served zone: chain only',
    qname: 'outside.example.test',
    qtype: 'A',
    rcode: 0,
    aa: true,
    answer: ['outside.example.test CNAME'],
    authority: [],
  },
  {
    why: 'CNAME loop: SERVFAIL with the chain (RFC 1034 section 3.6.2, as BIND)',
    qname: 'loop1.example.test',
    qtype: 'A',
    rcode: 2,
    aa: true,
    answer: ['loop1.example.test CNAME', 'loop2.example.test CNAME'],
    authority: [],
  },
  // Step 3c: no match.
  {
    why: 'NXDOMAIN',
    qname: 'nope.example.test',
    qtype: 'A',
    rcode: 3,
    aa: true,
    answer: [],
    authority: SOA,
  },
  {
    why: 'NXDOMAIN below an existing name',
    qname: 'deep.www.example.test',
    qtype: 'A',
    rcode: 3,
    aa: true,
    answer: [],
    authority: SOA,
  },
  {
    why: 'empty non-terminal: NODATA (RFC 8020)',
    qname: 'c.ent.example.test',
    qtype: 'A',
    rcode: 0,
    aa: true,
    answer: [],
    authority: SOA,
  },
  {
    why: 'empty non-terminal two levels up',
    qname: 'ent.example.test',
    qtype: 'TXT',
    rcode: 0,
    aa: true,
    answer: [],
    authority: SOA,
  },
  // RFC 4592 wildcards.
  {
    why: 'wildcard synthesis',
    qname: 'anything.wild.example.test',
    qtype: 'A',
    rcode: 0,
    aa: true,
    answer: ['anything.wild.example.test A'],
    authority: [],
  },
  {
    why: 'wildcard synthesis several labels down',
    qname: 'a.b.wild.example.test',
    qtype: 'TXT',
    rcode: 0,
    aa: true,
    answer: ['a.b.wild.example.test TXT'],
    authority: [],
  },
  {
    why: 'wildcard NODATA',
    qname: 'x.wild.example.test',
    qtype: 'MX',
    rcode: 0,
    aa: true,
    answer: [],
    authority: SOA,
  },
  {
    why: 'an existing name blocks the wildcard',
    qname: 'exists.wild.example.test',
    qtype: 'TXT',
    rcode: 0,
    aa: true,
    answer: [],
    authority: SOA,
  },
  {
    why: 'below an existing name the wildcard does not apply (RFC 4592 section 2.2.1)',
    qname: 'x.exists.wild.example.test',
    qtype: 'A',
    rcode: 3,
    aa: true,
    answer: [],
    authority: SOA,
  },
  {
    why: 'the wildcard owner itself',
    qname: '*.wild.example.test',
    qtype: 'A',
    rcode: 0,
    aa: true,
    answer: ['*.wild.example.test A'],
    authority: [],
  },
  {
    why: 'wildcard CNAME is followed',
    qname: 'q.cnamewild.example.test',
    qtype: 'A',
    rcode: 0,
    aa: true,
    answer: ['q.cnamewild.example.test CNAME', 'www.example.test A'],
    authority: [],
  },
  // Step 3b: referrals.
  {
    why: 'referral at the cut: NS in authority, glue, AA off',
    qname: 'sub.example.test',
    qtype: 'A',
    rcode: 0,
    aa: false,
    answer: [],
    authority: ['sub.example.test NS', 'sub.example.test NS'],
    additional: ['ns.sub.example.test A', 'ns.sub.example.test AAAA'],
  },
  {
    why: 'referral below the cut',
    qname: 'host.deep.sub.example.test',
    qtype: 'MX',
    rcode: 0,
    aa: false,
    answer: [],
    authority: ['sub.example.test NS', 'sub.example.test NS'],
    additional: ['ns.sub.example.test A', 'ns.sub.example.test AAAA'],
  },
  {
    why: 'glue name itself is answered by referral',
    qname: 'ns.sub.example.test',
    qtype: 'A',
    rcode: 0,
    aa: false,
    answer: [],
    authority: ['sub.example.test NS', 'sub.example.test NS'],
    additional: ['ns.sub.example.test A', 'ns.sub.example.test AAAA'],
  },
  {
    why: "DS at the cut is the parent's (NODATA here)",
    qname: 'sub.example.test',
    qtype: 'DS',
    rcode: 0,
    aa: true,
    answer: [],
    authority: SOA,
  },
  // RFC 6672 DNAME.
  {
    why: 'DNAME substitution, target answered in the zone',
    qname: 'x.old.example.test',
    qtype: 'A',
    rcode: 0,
    aa: true,
    answer: ['old.example.test DNAME', 'x.old.example.test CNAME', 'x.new.example.test A'],
    authority: [],
  },
  {
    why: 'DNAME owner itself is not redirected',
    qname: 'old.example.test',
    qtype: 'DNAME',
    rcode: 0,
    aa: true,
    answer: ['old.example.test DNAME'],
    authority: [],
  },
  {
    why: 'DNAME substitution to a missing name',
    qname: 'y.old.example.test',
    qtype: 'A',
    rcode: 3,
    aa: true,
    answer: ['old.example.test DNAME', 'y.old.example.test CNAME'],
    authority: SOA,
  },
  {
    why: 'QTYPE CNAME below a DNAME: the DNAME and synthesized CNAME, not followed (step 3a)',
    qname: 'y.old.example.test',
    qtype: 'CNAME',
    rcode: 0,
    aa: true,
    answer: ['old.example.test DNAME', 'y.old.example.test CNAME'],
    authority: [],
  },
  {
    why: 'QTYPE CNAME below a DNAME whose target exists: still not followed',
    qname: 'x.old.example.test',
    qtype: 'CNAME',
    rcode: 0,
    aa: true,
    answer: ['old.example.test DNAME', 'x.old.example.test CNAME'],
    authority: [],
  },
  {
    why: 'self-referencing DNAME with QTYPE CNAME: NOERROR, not SERVFAIL',
    qname: 'a.self.example.test',
    qtype: 'CNAME',
    rcode: 0,
    aa: true,
    answer: ['self.example.test DNAME', 'a.self.example.test CNAME'],
    authority: [],
  },
  {
    why: 'self-referencing DNAME with QTYPE A: the loop is SERVFAIL (as BIND)',
    qname: 'a.self.example.test',
    qtype: 'A',
    rcode: 2,
    aa: true,
    answer: ['self.example.test DNAME', 'a.self.example.test CNAME'],
    authority: [],
  },
  // Several zones: the most specific answers.
  {
    why: 'most specific zone answers',
    qname: 'host.inner.example.test',
    qtype: 'A',
    rcode: 0,
    aa: true,
    answer: ['host.inner.example.test A'],
    authority: [],
  },
  {
    why: 'negative from the most specific zone',
    qname: 'nope.inner.example.test',
    qtype: 'A',
    rcode: 3,
    aa: true,
    answer: [],
    authority: ['inner.example.test SOA'],
  },
  {
    why: 'name in no served zone: REFUSED, AA off',
    qname: 'www.example.org',
    qtype: 'A',
    rcode: 5,
    aa: false,
    answer: [],
    authority: [],
  },
  {
    why: 'root is not served: REFUSED',
    qname: '.',
    qtype: 'NS',
    rcode: 5,
    aa: false,
    answer: [],
    authority: [],
  },
];

let h: Harness;
beforeAll(async () => {
  h = await startTestServer([
    path.join(TEST_ZONES, 'example.test.zone'),
    path.join(TEST_ZONES, 'inner.example.test.zone'),
  ]);
});
afterAll(async () => h?.close());

describe.each(['udp', 'tcp'] as const)('RFC 1034 4.3.2 over %s', (transport) => {
  it.each(ROWS)('$why: $qname $qtype', async (row) => {
    const r = await query(h.port, transport, row.qname, row.qtype);
    expect(r.rcode).toBe(row.rcode);
    expect(r.aa).toBe(row.aa);
    expect(r.ra).toBe(false);
    expect(r.rd).toBe(true);
    expect(r.tc).toBe(false);
    expect(names(r.answer)).toEqual([...row.answer].sort());
    expect(names(r.authority)).toEqual([...row.authority].sort());
    if (row.additional) expect(names(r.additional)).toEqual([...row.additional].sort());
  });
});

describe('details', () => {
  it('echoes the question exactly as sent (case preserved) and RD as sent', async () => {
    const r = await query(h.port, 'udp', 'WwW.ExAmPlE.TeSt', 'A', { rd: false });
    expect(r.question?.name).toBe('WwW.ExAmPlE.TeSt');
    expect(r.rd).toBe(false);
    expect(r.raw.subarray(12, 12 + 18).toString('latin1')).toContain('WwW');
  });
  it('wildcard answers carry the query name as owner', async () => {
    const r = await query(h.port, 'udp', 'zzz.wild.example.test', 'A');
    expect(r.answer).toEqual(['zzz.wild.example.test 3600 A 192.0.2.99']);
  });
  it('the synthesized CNAME of a DNAME points at the substituted name (RFC 6672 section 2.2)', async () => {
    const r = await query(h.port, 'tcp', 'x.old.example.test', 'A');
    expect(r.answer).toContain('x.old.example.test 3600 CNAME x.new.example.test');
  });
});
