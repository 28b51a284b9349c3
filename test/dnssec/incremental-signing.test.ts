/**
 * Signing that costs what changed (issue 30): a reload of an inline-signed
 * zone on the one zone path (`zoneFromSource` with a state folder) keeps the
 * signatures of the RRsets that did not change, byte for byte, and signs the
 * changed RRsets, the NSEC/NSEC3 records around them and the SOA (the
 * previous version from the state folder, or in memory: the signed version
 * served, as the reload hands it to the load worker). The result
 * is as valid as a full re-sign (`dnssec-verify`, `ldns-verify-zone`), has
 * the same NSEC/NSEC3 chain, and a removed name leaves no NSEC pointing at it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zoneFromSource } from '../../src/authority/zones/servable.ts';
import type { InlineSigning } from '../../src/dnssec/inline.ts';
import { generateKey } from '../../src/dnssec/keys.ts';
import type { Zone } from '../../src/dns/core/zone/model.ts';
import { writeZone } from '../../src/dns/core/zone/writer.ts';
import { runTool, toolOrSkip } from '../helpers/tools.ts';
import { applyResigned } from '../../src/dnssec/core/resign-digest.ts';
import { keepSignedJournal } from '../../src/xfr/served-state.ts';

const verify = toolOrSkip('dnssec-verify');
const ldns = toolOrSkip('ldns-verify-zone');
const ORIGIN = 'inc.test.';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-incsign-'));
const keys = path.join(tmp, 'keys');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function zoneText(changed: boolean, serial: number): string {
  const lines = [
    '$ORIGIN inc.test.',
    '$TTL 300',
    `@ IN SOA ns.inc.test. hostmaster.inc.test. ${serial} 3600 600 86400 300`,
    '@ IN NS ns',
    'ns IN A 127.0.0.1',
  ];
  for (let i = 0; i < 60; i++) {
    if (changed && i === 20) continue; // removed name
    const txt = changed && i === 40 ? 'changed' : `v${i}`;
    lines.push(`n${i} IN NAPTR 100 10 "u" "E2U+web" "!^.*$!https://x/${i}!" .`);
    lines.push(`n${i} IN TXT "${txt}"`);
  }
  if (changed) lines.push('added.n7 IN A 192.0.2.7');
  return `${lines.join('\n')}\n`;
}

/** RRSIG RDATA (hex) by owner and covered type. */
function signatures(zone: Zone): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, node] of zone.nodes)
    for (const r of node.rrsets.get(46)?.records ?? []) {
      const k = `${name}/${(r.rdata[0]! << 8) | r.rdata[1]!}`;
      out.set(k, [out.get(k), hex(r.rdata)].filter(Boolean).join(','));
    }
  return out;
}

/** Every record but RRSIGs, as text lines sorted. */
function unsignedText(zone: Zone): string[] {
  return writeZone(zone)
    .split('\n')
    .filter((l) => l.trim() !== '' && !/\sRRSIG\s/.test(l))
    .sort();
}

const sh = runTool;

/** A folder for one case, its zone file's name and the signing options. */
function setup(name: string, nsec3: boolean, state: boolean) {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  const sign: InlineSigning = {
    keysDir: keys,
    nsec3,
    optOut: false,
    validity: 30 * 86400,
    refresh: 7 * 86400,
    ...(state ? { stateDir: path.join(dir, 'state') } : {}),
  };
  return { dir, file: path.join(dir, 'inc.test.zone'), sign };
}

/** `dnssec-verify` and `ldns-verify-zone` accept the zone (written to `out`). */
async function expectVerified(zone: Zone, out: string): Promise<void> {
  if (verify.skipReason ?? ldns.skipReason) return;
  writeFileSync(out, writeZone(zone));
  const v = await sh(verify.path!, ['-o', ORIGIN, out]);
  expect(v.code, v.out).toBe(0);
  expect(v.out).toContain('Zone fully signed');
  const l = await sh(ldns.path!, [out]);
  expect(l.code, l.out).toBe(0);
  expect(l.out).toContain('Zone is verified and complete');
}

beforeAll(async () => {
  mkdirSync(keys);
  await generateKey(keys, ORIGIN, 13, true);
  await generateKey(keys, ORIGIN, 13, false);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a reload of a signed zone signs what changed', () => {
  const cases = [
    { nsec3: false, from: 'state' },
    { nsec3: true, from: 'state' },
    { nsec3: true, from: 'memory' },
  ] as const;
  for (const { nsec3, from } of cases) {
    const denial = nsec3 ? 'NSEC3' : 'NSEC';
    // From the state folder's kept version, or from the signed version served (`signedBefore`, no state folder).
    it(`${denial}, previous version from ${from}: unchanged RRsets keep their RRSIG bytes; as valid as a full re-sign`, async () => {
      const { dir, file, sign } = setup(`${denial}-${from}`, nsec3, from === 'state');
      if (sign.stateDir) mkdirSync(sign.stateDir);
      writeFileSync(file, zoneText(false, 1));
      const first = await zoneFromSource(file, { origin: ORIGIN, sign });
      expect(first.zone && first.signed, JSON.stringify(first.diagnostics)).toBeTruthy();
      writeFileSync(file, zoneText(true, 1));
      const again = await zoneFromSource(file, {
        origin: ORIGIN,
        sign,
        previousSerial: first.signed!.serial,
        ...(from === 'memory' ? { signedBefore: first.zone! } : {}),
      });
      expect(again.zone && again.signed, JSON.stringify(again.diagnostics)).toBeTruthy();
      const a = signatures(first.zone!);
      const b = signatures(again.zone!);
      const s = again.signed!;
      // Changed: n40 TXT, the SOA, the name added (n7's subtree), n20 gone, and the denial records around them.
      expect(s.kept).toBeGreaterThan(s.rrsets - 12);
      expect(s.kept).toBeLessThan(s.rrsets);
      expect(b.get(`n40.${ORIGIN}/16`)).not.toBe(a.get(`n40.${ORIGIN}/16`));
      expect(b.get(`${ORIGIN}/6`)).not.toBe(a.get(`${ORIGIN}/6`));
      expect(b.has(`n20.${ORIGIN}/16`)).toBe(false);
      for (const i of [0, 5, 39, 41, 59]) {
        expect(b.get(`n${i}.${ORIGIN}/35`)).toBe(a.get(`n${i}.${ORIGIN}/35`));
        expect(b.get(`n${i}.${ORIGIN}/16`)).toBe(a.get(`n${i}.${ORIGIN}/16`));
      }
      expect(b.get(`${ORIGIN}/48`)).toBe(a.get(`${ORIGIN}/48`));
      // The same records as a full re-sign of the same file (the chain included), signatures aside.
      const full = await zoneFromSource(file, {
        origin: ORIGIN,
        sign: { ...sign, stateDir: undefined },
        previousSerial: first.signed!.serial,
      });
      expect(full.signed!.kept).toBe(0);
      expect(unsignedText(again.zone!)).toEqual(unsignedText(full.zone!));
      // No NSEC names the removed n20.
      expect(writeZone(again.zone!)).not.toMatch(/NSEC\s+n20\.inc\.test\./);
      await expectVerified(again.zone!, path.join(dir, 'signed.zone'));
    }, 60_000);
  }
});

describe('a change of RRset content only is signed beside the previous version', () => {
  for (const nsec3 of [false, true]) {
    const denial = nsec3 ? 'NSEC3' : 'NSEC';
    it(`${denial}: the changed names and the apex re-signed, twice in a row; verified; the records of a full re-sign`, async () => {
      const { dir, file, sign } = setup(`${denial}-content`, nsec3, false);
      const text = (txt: (i: number) => string, serial: number) =>
        zoneText(false, serial).replace(
          /n(\d+) IN TXT "v\d+"/g,
          (_, i) => `n${i} IN TXT "${txt(Number(i))}"`,
        );
      writeFileSync(
        file,
        text((i) => `v${i}`, 1),
      );
      const first = await zoneFromSource(file, { origin: ORIGIN, sign });
      expect(first.zone && first.signed, JSON.stringify(first.diagnostics)).toBeTruthy();
      let before = first.zone!;
      let serial = first.signed!.serial;
      // Two changes in a row: the second patches the first's patched version.
      for (const changed of [
        [3, 40],
        [3, 40, 41, 59],
      ]) {
        writeFileSync(
          file,
          text((i) => (changed.includes(i) ? `c${serial}` : `v${i}`), 1),
        );
        const again = await zoneFromSource(file, {
          origin: ORIGIN,
          sign,
          previousSerial: serial,
          signedBefore: before,
        });
        expect(again.zone && again.signed, JSON.stringify(again.diagnostics)).toBeTruthy();
        expect(again.zone!.constructor.name).toBe('PatchedZone');
        // The changed TXT RRsets and the SOA signed anew; the apex's and the changed names' other RRsets kept.
        expect(again.signed!.rrsets - (again.signed!.kept ?? 0)).toBe(changed.length + 1);
        const a = signatures(before);
        const b = signatures(again.zone!);
        for (const i of changed)
          expect(b.get(`n${i}.${ORIGIN}/16`)).not.toBe(a.get(`n${i}.${ORIGIN}/16`));
        expect(b.get(`${ORIGIN}/6`)).not.toBe(a.get(`${ORIGIN}/6`));
        for (const i of [0, 5, 39])
          expect(b.get(`n${i}.${ORIGIN}/16`)).toBe(a.get(`n${i}.${ORIGIN}/16`));
        expect(again.zone!.size).toBe(before.size);
        const full = await zoneFromSource(file, { origin: ORIGIN, sign, previousSerial: serial });
        expect(unsignedText(again.zone!)).toEqual(unsignedText(full.zone!));
        before = again.zone!;
        serial = again.signed!.serial;
        await expectVerified(again.zone!, path.join(dir, `signed-${serial}.zone`));
      }
    }, 60_000);
  }
});

describe('the state folder keeps a change signed by difference as a journal', () => {
  it('NSEC3: the whole signed file is not written again; a restart serves the changed version again (same serial, verified)', async () => {
    const { dir, file, sign } = setup('journal', true, true);
    mkdirSync(sign.stateDir!);
    writeFileSync(file, zoneText(false, 1));
    const first = await zoneFromSource(file, { origin: ORIGIN, sign });
    expect(first.zone && first.signed, JSON.stringify(first.diagnostics)).toBeTruthy();
    const whole = path.join(sign.stateDir!, `${ORIGIN}signed`);
    const kept = readFileSync(whole, 'utf8');
    // One TXT changed, re-signed by difference over `from`; the whole signed file stays as it was.
    const change = async (name: string, from: NonNullable<typeof first.zone>, serial: number) => {
      writeFileSync(file, zoneText(false, 1).replace(`"${name}"`, '"changed"'));
      const r = await zoneFromSource(file, {
        origin: ORIGIN,
        sign,
        previousSerial: serial,
        signedBefore: from,
      });
      expect(r.zone!.constructor.name).toBe('PatchedZone');
      expect(readFileSync(whole, 'utf8')).toBe(kept);
      return r;
    };
    const again = await change('v40', first.zone!, first.signed!.serial);
    const journal = readFileSync(`${whole}.journal`, 'utf8');
    expect(journal).toContain('"changed"');
    expect(journal).not.toContain('n39.');
    // What the served-serial state says after the swap: this version, for this content.
    const { ServedStates } = await import('../../src/xfr/served-state.ts');
    const { contentHash } = await import('../../src/dnssec/inline.ts');
    const log = { warn: () => {}, info: () => {}, debug: () => {}, error: () => {} } as never;
    const hash = await contentHash(file, sign);
    await new ServedStates(sign.stateDir, log).swapped(again.zone!, { hash, signed: true }, false);
    // A restart: the kept version with its journal, served again as it was.
    const resumed = await zoneFromSource(file, { origin: ORIGIN, sign });
    expect(resumed.signed?.resumed, JSON.stringify(resumed.diagnostics)).toBe(true);
    expect(resumed.signed!.serial).toBe(again.signed!.serial);
    expect(writeZone(resumed.zone!)).toBe(writeZone(again.zone!));
    await expectVerified(resumed.zone!, path.join(dir, 'resumed.zone'));
    // A change after the restart patches the resumed version; the journal goes over the same whole file.
    const third = await change('v41', resumed.zone!, resumed.signed!.serial);
    await expectVerified(third.zone!, path.join(dir, 'third.zone'));
  }, 60_000);
});

describe('a reload signed against the token of the version served (the load worker kept its digest)', () => {
  for (const nsec3 of [false, true]) {
    const denial = nsec3 ? 'NSEC3' : 'NSEC';
    it(`${denial}: the names re-signed put over the version served equal the signing with it; twice in a row; verified`, async () => {
      const { dir, file, sign } = setup(`${denial}-token`, nsec3, false);
      // n40 and n41: TXT changed (n41's NAPTR too); the other RRsets of n40 keep their signatures.
      const text = (serial: number, changed: readonly number[]) =>
        zoneText(false, 1)
          .replace(/n(\d+) IN TXT "v\d+"/g, (l, i) =>
            changed.includes(Number(i)) ? `n${i} IN TXT "c${serial}"` : l,
          )
          .replace(
            '"!^.*$!https://x/41!"',
            changed.includes(41) ? `"!^.*$!https://y/${serial}!"` : '$&',
          );
      writeFileSync(file, text(0, []));
      const first = await zoneFromSource(file, { origin: ORIGIN, sign });
      expect(first.signed?.token, JSON.stringify(first.diagnostics)).toBeDefined();
      let served = first.zone!;
      let { serial, token } = first.signed!;
      for (const changed of [[40], [3, 40, 41]]) {
        writeFileSync(file, text(serial, changed));
        const r = await zoneFromSource(file, {
          origin: ORIGIN,
          sign,
          previousSerial: serial,
          servedToken: token,
        });
        expect(r.zone).toBeUndefined();
        expect(r.resigned, JSON.stringify(r.diagnostics)).toBeDefined();
        // The changed names and the apex, nothing else.
        expect(r.resigned!.map((n) => n.name).sort()).toEqual(
          [ORIGIN, ...changed.map((i) => `n${i}.${ORIGIN}`)].sort(),
        );
        const zone = applyResigned(served, r.resigned!)!;
        expect(zone.constructor.name).toBe('PatchedZone');
        const a = signatures(served);
        const b = signatures(zone);
        for (const i of changed)
          expect(b.get(`n${i}.${ORIGIN}/16`)).not.toBe(a.get(`n${i}.${ORIGIN}/16`));
        // An unchanged RRset at a changed name, the apex's DNSKEY and NS, and the other names keep theirs.
        expect(b.get(`n40.${ORIGIN}/35`)).toBe(a.get(`n40.${ORIGIN}/35`));
        expect(b.get(`${ORIGIN}/48`)).toBe(a.get(`${ORIGIN}/48`));
        expect(b.get(`${ORIGIN}/2`)).toBe(a.get(`${ORIGIN}/2`));
        expect(b.get(`${ORIGIN}/6`)).not.toBe(a.get(`${ORIGIN}/6`));
        for (const i of [0, 5, 39, 59])
          expect(b.get(`n${i}.${ORIGIN}/16`)).toBe(a.get(`n${i}.${ORIGIN}/16`));
        expect(zone.size).toBe(served.size);
        expect(zone.soa.records[0]!.rdata).toEqual(
          zone.nodes.get(ORIGIN)!.rrsets.get(6)!.records[0]!.rdata,
        );
        // The same records as signing with the version served at hand, and as a full re-sign.
        const withBefore = await zoneFromSource(file, {
          origin: ORIGIN,
          sign,
          previousSerial: serial,
          signedBefore: served,
        });
        expect(unsignedText(zone)).toEqual(unsignedText(withBefore.zone!));
        const c = signatures(withBefore.zone!);
        expect([...b.keys()].sort()).toEqual([...c.keys()].sort());
        const fresh = [...b.keys()].filter((k) => b.get(k) !== c.get(k)).sort();
        const renamed = changed.map((i) => `n${i}.${ORIGIN}/16`);
        if (changed.includes(41)) renamed.push(`n41.${ORIGIN}/35`);
        expect(fresh).toEqual([`${ORIGIN}/6`, ...renamed].sort());
        const full = await zoneFromSource(file, { origin: ORIGIN, sign, previousSerial: serial });
        expect(unsignedText(zone)).toEqual(unsignedText(full.zone!));
        await expectVerified(zone, path.join(dir, `signed-${r.signed!.serial}.zone`));
        // The thread signed twice more since (with the version at hand, whole): that token is gone.
        const redo = await zoneFromSource(file, {
          origin: ORIGIN,
          sign,
          previousSerial: serial,
          servedToken: r.signed!.token!,
        });
        expect(redo.needBefore).toBe(true);
        served = full.zone!;
        ({ serial, token } = full.signed!);
      }
    }, 60_000);
  }

  it('NSEC3, a state folder: the names re-signed are kept as the journal; a restart serves that version again', async () => {
    const { dir, file, sign } = setup('token-state', true, true);
    mkdirSync(sign.stateDir!);
    writeFileSync(file, zoneText(false, 1));
    const first = await zoneFromSource(file, { origin: ORIGIN, sign });
    const whole = path.join(sign.stateDir!, `${ORIGIN}signed`);
    const kept = readFileSync(whole, 'utf8');
    writeFileSync(file, zoneText(false, 1).replace('"v40"', '"changed"'));
    const { serial, token } = first.signed!;
    const r = await zoneFromSource(file, {
      origin: ORIGIN,
      sign,
      previousSerial: serial,
      servedToken: token,
    });
    // Nothing written by the signing thread: the serving one keeps what it puts over its version.
    expect(existsSync(`${whole}.journal`)).toBe(false);
    const zone = applyResigned(first.zone!, r.resigned!)!;
    expect(await keepSignedJournal(sign.stateDir!, zone)).toBe(true);
    expect(readFileSync(whole, 'utf8')).toBe(kept);
    expect(readFileSync(`${whole}.journal`, 'utf8')).toContain('"changed"');
    const { ServedStates } = await import('../../src/xfr/served-state.ts');
    const { contentHash } = await import('../../src/dnssec/inline.ts');
    const log = { warn: () => {}, info: () => {}, debug: () => {}, error: () => {} } as never;
    await new ServedStates(sign.stateDir, log).swapped(
      zone,
      { hash: await contentHash(file, sign), signed: true },
      false,
    );
    const resumed = await zoneFromSource(file, { origin: ORIGIN, sign });
    expect(resumed.signed?.resumed, JSON.stringify(resumed.diagnostics)).toBe(true);
    expect(writeZone(resumed.zone!)).toBe(writeZone(zone));
    await expectVerified(resumed.zone!, path.join(dir, 'resumed.zone'));
  }, 60_000);

  it('more than content changed, or another token: asks for the version served', async () => {
    const { file, sign } = setup('token-fallback', false, false);
    writeFileSync(file, zoneText(false, 1));
    const first = await zoneFromSource(file, { origin: ORIGIN, sign });
    const { serial, token } = first.signed!;
    const again = (o: { servedToken?: string; now?: number } = {}) =>
      zoneFromSource(file, {
        origin: ORIGIN,
        sign,
        previousSerial: serial,
        servedToken: token,
        ...o,
      });
    // A name removed and one added.
    writeFileSync(file, zoneText(true, 1));
    expect((await again()).needBefore).toBe(true);
    // A type added to a name.
    writeFileSync(file, `${zoneText(false, 1)}n3 IN A 192.0.2.3\n`);
    expect((await again()).needBefore).toBe(true);
    // The SOA's minimum (every NSEC's TTL).
    writeFileSync(file, zoneText(false, 1).replace(' 86400 300', ' 86400 301'));
    expect((await again()).needBefore).toBe(true);
    // Another token: this thread did not sign the version served.
    writeFileSync(file, zoneText(false, 1).replace('"v7"', '"c7"'));
    expect((await again({ servedToken: `${ORIGIN}#0` })).needBefore).toBe(true);
    // The right token: signed against it.
    expect((await again()).resigned?.length).toBe(2);
  }, 60_000);
});
