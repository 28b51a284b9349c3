/**
 * The pure parts of a zone's versions: the serial policy (`serial: "date" |
 * "increment"`, RFC 1982 safe), condensing a sequence of IXFR differences
 * into one (RFC 1995 section 6), the difference and serial chosen where a
 * zone is loaded (`prepareVersion`), and the check of a signed answer's TSIG
 * (RFC 8945, as the sender of a NOTIFY applies it).
 */
import { describe, expect, it } from 'vitest';
import { chooseSerial, serialCompare } from '../../src/xfr/core/serial.ts';
import {
  condenseDiffs,
  condenseWhenSmaller,
  sequenceRecords,
} from '../../src/xfr/core/condense.ts';
import { diffZones, type ZoneDiff } from '../../src/xfr/core/diff.ts';
import { prepareVersion } from '../../src/xfr/core/version.ts';
import { soaRecord, type PlainRecord } from '../../src/xfr/core/records.ts';
import { soaSerialOf } from '../../src/dns/core/rr/soa.ts';
import { parseZoneText } from '../../src/dns/core/zone/parser.ts';
import { buildZone } from '../../src/dns/core/zone/build.ts';
import type { Zone } from '../../src/dns/core/zone/model.ts';
import { readTsig, TsigSigner, type TsigKey } from '../../src/xfr/core/tsig.ts';
import { verifyResponse } from '../../src/xfr/core/tsig-response.ts';
import { nodeHmac } from '../../src/xfr/tsig.ts';

const ORIGIN = 'v.test.';
function zone(serial: number, body: string): Zone {
  const text = `$ORIGIN ${ORIGIN}\n$TTL 300\n@ SOA ns1 hostmaster ${serial} 3600 600 86400 300\n@ NS ns1\nns1 A 192.0.2.1\n${body}`;
  const p = parseZoneText(text, { origin: ORIGIN });
  const b = buildZone(p.records, { origin: ORIGIN });
  if (!b.zone) throw new Error(b.diagnostics.map((d) => d.message).join('; '));
  return b.zone;
}
const serialOf = (z: Zone) => soaSerialOf(soaRecord(z).rdata);
/** Owner's first label, type, TTL and RDATA of each record, sorted. */
const names = (rs: readonly PlainRecord[]) =>
  rs
    .map(
      (r) =>
        `${r.key.slice(1, 1 + r.key.charCodeAt(0))}/${r.type}/${r.ttl}/${[...r.rdata].join(',')}`,
    )
    .sort();

describe('serial policy (RFC 1982)', () => {
  it('keep: the file serial, whatever changed', () => {
    expect(chooseSerial('keep', 5, 5, true, 20261125)).toEqual({
      serial: 5,
      rewritten: false,
      raised: false,
    });
  });

  it('a first load with nothing served: the file serial', () => {
    expect(chooseSerial('date', 7, undefined, true, 20261125).serial).toBe(7);
  });

  it('a serial the user raised is taken as it is', () => {
    expect(chooseSerial('date', 2026112507, 2026112503, true, 20261125)).toMatchObject({
      serial: 2026112507,
      raised: false,
    });
  });

  it('date: YYYYMMDD00 when ahead of the served serial, else the served serial plus one', () => {
    expect(chooseSerial('date', 2026010101, 2026010101, true, 20261125)).toEqual({
      serial: 2026112500,
      rewritten: true,
      raised: true,
    });
    // Already raised today twice: the next is +1, not back to ...00.
    expect(chooseSerial('date', 2026010101, 2026112501, true, 20261125).serial).toBe(2026112502);
    // A small counter-style serial: the date form is ahead of it on the circle.
    expect(chooseSerial('date', 41, 41, true, 20261125).serial).toBe(2026112500);
    // The date form would be behind (RFC 1982: 4000000000 is ahead of 2026112500): +1, wrapping.
    expect(chooseSerial('date', 4000000000, 4000000000, true, 20261125).serial).toBe(4000000001);
    expect(chooseSerial('date', 0xffffffff, 0xffffffff, true, 20261125).serial).toBe(2026112500);
  });

  it('increment: +1 on the circle (0xffffffff wraps to 0, which RFC 1982 counts as greater)', () => {
    expect(chooseSerial('increment', 9, 9, true).serial).toBe(10);
    const wrapped = chooseSerial('increment', 0xffffffff, 0xffffffff, true).serial;
    expect(wrapped).toBe(0);
    expect(serialCompare(wrapped, 0xffffffff)).toBe(1);
  });

  it('a file serial left behind by an earlier raise: the served one stays while nothing changed', () => {
    expect(chooseSerial('date', 2026010101, 2026112500, false, 20261125)).toEqual({
      serial: 2026112500,
      rewritten: true,
      raised: false,
    });
    expect(chooseSerial('increment', 2026010101, 2026112500, true).serial).toBe(2026112501);
  });
});

const A = (d: string) => `a A 192.0.2.${d}\n`;
describe('condensed IXFR (RFC 1995 section 6)', () => {
  // v1 -> v2: a .10 -> .11, add b;  v2 -> v3: b removed again, c added;  v3 -> v4: a back to .10 with TTL 60
  const v1 = zone(1, A('10'));
  const v2 = zone(2, A('11') + 'b TXT "x"\n');
  const v3 = zone(3, A('11') + 'c TXT "y"\n');
  const v4 = zone(4, 'a 60 A 192.0.2.10\nc TXT "y"\n');
  const seq: ZoneDiff[] = [diffZones(v1, v2), diffZones(v2, v3), diffZones(v3, v4)];

  it('the condensed difference equals the direct difference of the first and last versions', () => {
    const c = condenseDiffs(seq);
    const direct = diffZones(v1, v4);
    expect(soaSerialOf(c.fromSoa.rdata)).toBe(1);
    expect(soaSerialOf(c.toSoa.rdata)).toBe(4);
    // b came and went: absent; a .10 (TTL 300) deleted, a .10 (TTL 60) added; c added.
    expect(names(c.removed)).toEqual(names(direct.removed));
    expect(names(c.added)).toEqual(names(direct.added));
    expect(c.removed.map((r) => r.ttl)).toEqual([300]);
    expect(c.added.map((r) => r.ttl).sort()).toEqual([300, 60].sort());
  });

  it('a record deleted and put back unchanged disappears from the condensed form', () => {
    const back = condenseDiffs([diffZones(v1, v2), diffZones(v2, zone(5, A('10')))]);
    expect(back.removed).toEqual([]);
    expect(back.added).toEqual([]);
  });

  it('condensed only when smaller; one difference is sent as it is', () => {
    expect(condenseWhenSmaller(seq)).toHaveLength(1);
    expect(sequenceRecords(condenseWhenSmaller(seq))).toBeLessThan(sequenceRecords(seq));
    expect(condenseWhenSmaller([seq[0]!])[0]).toBe(seq[0]);
  });
});

describe('prepareVersion: difference and serial where the zone is loaded', () => {
  it('content changed, serial not raised, policy date: the zone SOA is raised and the difference ends at it', () => {
    const before = zone(2026010101, A('10'));
    const after = zone(2026010101, A('11'));
    const p = prepareVersion(after, { policy: 'date', before, date: 20261125, diff: true });
    expect(p.changed).toBe(true);
    expect(p.choice).toEqual({ serial: 2026112500, rewritten: true, raised: true });
    expect(serialOf(after)).toBe(2026112500);
    expect(soaSerialOf(p.diff!.fromSoa.rdata)).toBe(2026010101);
    expect(soaSerialOf(p.diff!.toSoa.rdata)).toBe(2026112500);
    expect(p.diff!.removed).toHaveLength(1);
    expect(p.diff!.added).toHaveLength(1);
  });

  it('only comments or layout changed: not raised, no difference; keep leaves the serial alone', () => {
    const before = zone(7, A('10'));
    const same = zone(7, `; a comment\n${A('10')}`);
    const p = prepareVersion(same, { policy: 'increment', before, date: 20261125, diff: true });
    expect(p.changed).toBe(false);
    expect(p.choice.raised).toBe(false);
    expect(p.diff).toBeUndefined();
    const kept = prepareVersion(zone(7, A('12')), { policy: 'keep', before, date: 1, diff: true });
    expect(kept.choice.serial).toBe(7);
    expect(kept.diff).toBeUndefined();
  });

  it('after a restart: the served serial kept for the same content, raised past it for new content', () => {
    const same = zone(3, A('10'));
    const r1 = prepareVersion(same, {
      policy: 'date',
      restored: { serial: 2026112504, changed: false },
      date: 20261125,
      diff: true,
    });
    expect(r1.choice).toEqual({ serial: 2026112504, rewritten: true, raised: false });
    expect(serialOf(same)).toBe(2026112504);
    const changed = zone(3, A('99'));
    const r2 = prepareVersion(changed, {
      policy: 'date',
      restored: { serial: 2026112504, changed: true },
      date: 20261125,
      diff: true,
    });
    expect(r2.choice.serial).toBe(2026112505);
    expect(r2.diff).toBeUndefined();
  });
});

describe('TSIG of an answer to a signed NOTIFY', () => {
  const key: TsigKey = {
    name: 'notify-key.',
    algorithm: 'hmac-sha256',
    secret: new Uint8Array(32).fill(7),
  };
  const now = 1_764_000_000;
  const request = new Uint8Array([0x12, 0x34, 0x24, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  const signedRequest = new TsigSigner(key, nodeHmac, now, undefined).sign(request);
  const t = readTsig(signedRequest);
  if (t === undefined || t === 'FORMERR') throw new Error('the request is not signed');
  const requestMac = t.mac;
  const answer = new Uint8Array([0x12, 0x34, 0xa4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

  it('a right signature over the request MAC passes', () => {
    const signed = new TsigSigner(key, nodeHmac, now, requestMac).sign(answer);
    expect(verifyResponse(signed, key, requestMac, nodeHmac, now)).toEqual({ ok: true });
  });

  it('unsigned, another key, a wrong MAC, a stale time: each fails with its reason', () => {
    expect(verifyResponse(answer, key, requestMac, nodeHmac, now)).toEqual({
      ok: false,
      error: { code: 'TSIG_UNSIGNED', message: 'unsigned answer' },
    });
    const other = { ...key, name: 'other-key.' };
    const byOther = new TsigSigner(other, nodeHmac, now, requestMac).sign(answer);
    expect(verifyResponse(byOther, key, requestMac, nodeHmac, now)).toMatchObject({
      error: { code: 'TSIG_BAD_KEY', message: 'signed with another key' },
    });
    const wrongSecret = { ...key, secret: new Uint8Array(32).fill(8) };
    const bad = new TsigSigner(wrongSecret, nodeHmac, now, requestMac).sign(answer);
    expect(verifyResponse(bad, key, requestMac, nodeHmac, now)).toMatchObject({
      error: { code: 'TSIG_BAD_SIG', message: 'wrong MAC' },
    });
    const notOverRequest = new TsigSigner(key, nodeHmac, now, undefined).sign(answer);
    expect(verifyResponse(notOverRequest, key, requestMac, nodeHmac, now)).toMatchObject({
      error: { code: 'TSIG_BAD_SIG', message: 'wrong MAC' },
    });
    const stale = new TsigSigner(key, nodeHmac, now - 1000, requestMac).sign(answer);
    expect(verifyResponse(stale, key, requestMac, nodeHmac, now)).toMatchObject({
      error: { code: 'TSIG_BAD_TIME', message: 'signed outside the time fudge' },
    });
  });
});
