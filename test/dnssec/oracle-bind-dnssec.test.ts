/**
 * Oracle for signed zones (RFC 4033-4035, RFC 5155): the sample zones and
 * `signed.test` (secure and insecure delegations, wildcards, empty
 * non-terminals, CNAME/DNAME) signed with `dnssec-signzone` (NSEC, NSEC3,
 * NSEC3 with opt-out), served by lexroute and by BIND 9; a DO query corpus
 * compared section by section: RCODE, the whole flags word, answer,
 * authority and additional RRsets (order-insensitive, TTLs and RDATA,
 * RRSIGs included). Also a few DO-clear queries: no DNSSEC records unless
 * asked for by type.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import { typeName } from '../../src/dns/core/rr/types.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import {
  query,
  SAMPLE_ZONES,
  startTestServer,
  TEST_ZONES,
  type Decoded,
  type Harness,
} from '../server/harness.ts';
import { startNamed, type RunningNamed } from '../server/named.ts';
import { bindSign, type Denial } from './bind-sign.ts';

const named = toolOrSkip('named');
const signer = toolOrSkip('dnssec-signzone');
const skip = named.skipReason ?? signer.skipReason;

const SAMPLES = readdirSync(SAMPLE_ZONES)
  .filter((f) => f.endsWith('.zone'))
  .map((f) => path.join(SAMPLE_ZONES, f));
const SIGNED_TEST = path.join(TEST_ZONES, 'signed.test.zone');

const TYPES = [
  'A',
  'AAAA',
  'NS',
  'SOA',
  'TXT',
  'SRV',
  'NAPTR',
  'CNAME',
  'DS',
  'DNSKEY',
  'RRSIG',
  'NSEC',
  'MX',
];

interface Q {
  qname: string;
  qtype: string;
  transport: 'udp' | 'tcp';
  do: boolean;
  udpSize: number;
  /** Every other query has CD set: it is echoed (RFC 6840 section 5.9). */
  cd: boolean;
}

async function corpus(files: readonly string[], full: boolean): Promise<Q[]> {
  const qs: Q[] = [];
  const add = (
    qname: string,
    qtype: string,
    transport: 'udp' | 'tcp' = 'udp',
    dnssec = true,
    udpSize = 4096,
  ) => qs.push({ qname, qtype, transport, do: dnssec, udpSize, cd: qs.length % 2 === 0 });
  for (const file of files) {
    const zone = (await loadZoneFile(file)).zone!;
    for (const node of zone.nodes.values()) {
      const owned = [...node.rrsets.keys()].map((t) => typeName(t));
      // The NSEC3 owners are not names of the zone's data.
      if (owned.includes('NSEC3')) continue;
      const types = full ? new Set([...owned, ...TYPES]) : new Set([...owned, 'A', 'NAPTR']);
      for (const t of types) add(node.name, t, 'tcp');
      add(node.name, 'ANY', 'tcp');
      if (!node.name.startsWith('*')) {
        add(`nx-1.${node.name}`, 'A', 'tcp');
        add(`nx-2.deeper.${node.name}`, 'NAPTR', 'tcp');
      }
      // Over UDP with a 600-octet buffer (BIND leaves the additional section out at exactly 512 with DO): truncation must keep RRSIGs with their RRsets.
      for (const t of owned) add(node.name, t, 'udp', true, 600);
      add(`nx-3.${node.name}`, 'NAPTR', 'udp', true, 600);
      if (full) {
        add(node.name, 'A', 'udp', false);
        add(node.name, 'RRSIG', 'udp', false);
      }
    }
  }
  return qs;
}

/** An RR text with its signature octets summed up (readable diffs; RDATA still compared). */
function short(rr: string): string {
  return rr
    .replace(/"signature":\{"type":"Buffer","data":\[([\d,]*)\]\}/, (_m, d: string) => {
      let h = 0;
      for (const x of d.split(',')) h = (h * 31 + Number(x)) | 0;
      return `"sig#${(h >>> 0).toString(16)}"`;
    })
    .replace(/"expiration":\d+,"inception":\d+,/, '');
}

function compare(q: Q, ours: Decoded, theirs: Decoded, full?: Decoded): string[] {
  const diffs: string[] = [];
  // Allowed: lexroute never compresses an RDATA name (SOA MNAME/RNAME) into the
  // question (whose case is the client's), BIND does; a response a few octets
  // over the buffer is truncated by us and not by BIND. Ours must then really
  // be over the limit.
  if (full && ours.tc && !theirs.tc && full.raw.length > q.udpSize && ours.answer.length === 0)
    return diffs;
  const f1 = ours.raw.readUInt16BE(2);
  const f2 = theirs.raw.readUInt16BE(2);
  if (f1 !== f2) diffs.push(`flags ${f1.toString(16)} vs ${f2.toString(16)}`);
  if (ours.opt?.do !== theirs.opt?.do) diffs.push(`DO ${ours.opt?.do} vs ${theirs.opt?.do}`);
  const cmp = (name: string, a: string[], b: string[]) => {
    const sa = a.map(short).sort();
    const sb = b.map(short).sort();
    if (JSON.stringify(sa) !== JSON.stringify(sb))
      diffs.push(
        `${name}:\n    ours ${sa.join('\n         ')}\n    bind ${sb.join('\n         ')}`,
      );
  };
  cmp('answer', ours.answer, theirs.answer);
  cmp('authority', ours.authority, theirs.authority);
  if (q.udpSize < 4096 && ours.additional.length < theirs.additional.length + 8) {
    // Additional data cut to a small buffer: RFC 4035 section 3.1.1 lets the server
    // choose; BIND may send an RRSIG without its RRset. Ours must be a subset of
    // the full additional section, with every RRset's RRSIG (see fitBody).
    const all = new Set(full!.additional.map(short));
    for (const rr of ours.additional.map(short))
      if (!all.has(rr)) diffs.push(`additional: ${rr} is not in the full answer`);
    for (const rr of ours.additional.map(short)) {
      const [owner, , type] = rr.split(' ');
      if (type === 'RRSIG') continue;
      const signed = full!.additional.some(
        (x) => x.startsWith(`${owner} `) && x.includes(`"typeCovered":"${type}"`),
      );
      const sent = ours.additional.some(
        (x) => x.startsWith(`${owner} `) && x.includes(`"typeCovered":"${type}"`),
      );
      if (signed && !sent) diffs.push(`additional: ${owner} ${type} without its RRSIG`);
    }
  } else cmp('additional', ours.additional, theirs.additional);
  return diffs;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-dnssec-oracle-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const CASES: { denial: Denial; files: () => string[]; full: boolean }[] = [
  { denial: 'nsec', full: true, files: () => [SIGNED_TEST, ...SAMPLES] },
  { denial: 'nsec3', full: true, files: () => [SIGNED_TEST] },
  { denial: 'nsec3-optout', full: true, files: () => [SIGNED_TEST, ...SAMPLES] },
];

describe.skipIf(skip !== undefined)('oracle: signed zones, lexroute vs BIND 9', () => {
  for (const c of CASES) {
    describe(c.denial, () => {
      let h: Harness | undefined;
      let bind: RunningNamed | undefined;
      let qs: Q[] = [];
      beforeAll(async () => {
        const dir = path.join(tmp, c.denial);
        const signed = [];
        for (const file of c.files()) {
          const zone = (await loadZoneFile(file)).zone!;
          signed.push(bindSign(file, zone.origin, dir, c.denial));
        }
        qs = await corpus(
          signed.map((s) => s.file),
          c.full,
        );
        h = await startTestServer(signed.map((s) => s.file));
        bind = await startNamed(named.path!, signed);
      }, 60_000);
      afterAll(async () => {
        await h?.close();
        await bind?.close();
      });
      it('answers every DO query like BIND (flags, answer, authority, additional)', async () => {
        const failures: string[] = [];
        for (const q of qs) {
          const o = { edns: { do: q.do, udpSize: q.udpSize }, rd: false, cd: q.cd };
          const ours = await query(h!.port, q.transport, q.qname, q.qtype, o);
          const theirs = await query(bind!.port, q.transport, q.qname, q.qtype, o);
          const full =
            q.udpSize < 4096 ? await query(h!.port, 'tcp', q.qname, q.qtype, o) : undefined;
          const d = compare(q, ours, theirs, full);
          if (d.length)
            failures.push(
              `${q.qname} ${q.qtype} ${q.transport} do=${q.do} bufsize=${q.udpSize}\n  ${d.join('\n  ')}`,
            );
        }
        expect(qs.length).toBeGreaterThan(100);
        expect(failures.length, failures.slice(0, 15).join('\n')).toBe(0);
      }, 120_000);
    });
  }
});
