/**
 * lexroute as a secondary of hostile primaries: a small TCP server written
 * here answers the SOA query and sends crafted AXFR/IXFR streams. A stream
 * cut in the middle, one whose last SOA differs from the first, one with a
 * wrong TSIG on its third message, one with a message that is not a DNS
 * message, one that never ends (past maxRecords or maxBytes), one that
 * drips an octet at a time (past maxSeconds), and one that ends on a serial
 * older than the one served each fail with their code (`xfr_in_failed`)
 * and leave the version served before. IXFR errors fall back to AXFR, but
 * for TSIG faults and limits. NOTIFY is taken only from a primary's
 * address, with its key when it has one; refusals are summarised.
 */
import dgram from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';
import { readTsig, TsigSigner, type TsigKey } from '../../src/xfr/core/tsig.ts';
import { nodeHmac, nowSeconds } from '../../src/xfr/tsig.ts';
import { query } from '../server/harness.ts';
import { collectServerMetrics } from '../../src/authority/ops.ts';
import { ZoneStatusBook } from '../../src/authority/zone-status.ts';
import { drip, naptr, soaAnswer, streamEndless } from './endless.ts';

const ORIGIN = 'hostile.test.';
const KEYED = 'keyed.hostile.test.';
const SECRET = 'aG9zdGlsZS1wcmltYXJ5LWtleS0xMjM0NTY3ODkwYWI=';
const KEY: TsigKey = {
  name: 'hostile-key.',
  algorithm: 'hmac-sha256',
  secret: new Uint8Array(Buffer.from(SECRET, 'base64')),
};

type Mode =
  | 'good'
  | 'cut'
  | 'soa-mismatch'
  | 'bad-tsig-3'
  | 'not-dns'
  | 'ixfr-refused'
  | 'lint'
  | 'endless'
  | 'drip'
  | 'older'
  | 'older-ixfr'
  | 'ixfr-mismatch';

/** Zones with small limits of their own: records (and a short deadline), octets. */
const LIMITED = 'limited.hostile.test.';
const SMALL = 'small.hostile.test.';

/** The primary's state: the serial it serves and how it answers transfers. */
const state = { serial: 1, olderSerial: 1, mode: 'good' as Mode, transfers: [] as string[] };

const soa = soaAnswer;

/** The zone's records between its SOAs: NS, A, and NAPTRs named r0..r<serial+4>. */
function body(origin: string, serial: number): dnsPacket.Answer[] {
  const out: dnsPacket.Answer[] = [
    { type: 'NS', name: origin, ttl: 60, data: `ns1.${origin}` },
    { type: 'A', name: `ns1.${origin}`, ttl: 60, data: '127.0.0.1' },
  ];
  for (let i = 0; i < serial + 4; i++) out.push(naptr(origin, i));
  return out;
}

function message(id: number, answers: dnsPacket.Answer[], question?: dnsPacket.Question): Buffer {
  return dnsPacket.encode({
    type: 'response',
    id,
    flags: dnsPacket.AUTHORITATIVE_ANSWER,
    questions: question ? [question] : [],
    answers,
  });
}

/** The answer messages to a request, each with at most two records (so a zone spans several). */
function answerTo(req: Buffer): Buffer[] | 'close' {
  const decoded = dnsPacket.decode(req);
  const q = decoded.questions![0]!;
  const origin = q.name.toLowerCase() + '.';
  const id = req.readUInt16BE(0);
  state.transfers.push(q.type);
  if (q.type === 'SOA') return [message(id, [soa(origin, state.serial)], q)];
  const mode = state.mode;
  if (mode === 'ixfr-refused' && q.type === 'IXFR') {
    const m = message(id, [], q);
    m[3] = (m[3]! & 0xf0) | 5;
    return [m];
  }
  if (mode === 'not-dns') return [Buffer.from('this is not DNS')];
  const held = (decoded.authorities?.[0] as { data?: { serial?: number } } | undefined)?.data
    ?.serial;
  if (q.type === 'IXFR' && held !== undefined && mode === 'older-ixfr') {
    // A chained IXFR from the version held to an older one (held - 1): it applies, and goes back.
    const to = soa(origin, held - 1);
    const rr = body(origin, 1)[2]!;
    return [message(id, [to, soa(origin, held), to, rr, to], q)];
  }
  if (q.type === 'IXFR' && mode === 'ixfr-mismatch') {
    // A difference from a serial the secondary does not hold.
    const to = soa(origin, state.serial);
    return [message(id, [to, soa(origin, state.serial + 7), to, to], q)];
  }
  // 'older': the SOA query said state.serial, the transfer ends on an older one.
  const serial = mode === 'older' ? state.olderSerial : state.serial;
  const last = mode === 'soa-mismatch' ? serial + 1 : serial;
  // 'lint': a record the NAPTR lint finds fault with (REGEXP and REPLACEMENT both set).
  const extra: dnsPacket.Answer[] =
    mode === 'lint'
      ? [
          {
            ...naptr(origin, 0),
            name: `both.${origin}`,
            data: {
              ...(naptr(origin, 0) as { data: object }).data,
              replacement: `target.${origin}`,
            },
          } as dnsPacket.Answer,
        ]
      : [];
  const records = [soa(origin, serial), ...body(origin, serial), ...extra, soa(origin, last)];
  const out: Buffer[] = [];
  for (let i = 0; i < records.length; i += 2)
    out.push(message(id, records.slice(i, i + 2), i === 0 ? q : undefined));
  return mode === 'cut' ? out.slice(0, 2) : out;
}

/** Sign the messages of an answer in order; `bad-tsig-3` breaks the third's MAC. */
function signAll(req: Buffer, messages: Buffer[]): Buffer[] {
  const t = readTsig(req);
  if (t === undefined || t === 'FORMERR') return messages;
  const signer = new TsigSigner(KEY, nodeHmac, nowSeconds(), t.mac);
  return messages.map((m, i) => {
    const s = Buffer.from(signer.sign(m));
    if (state.mode === 'bad-tsig-3' && i === 2) s[s.length - 7]! ^= 0xff;
    return s;
  });
}

/** Records the endless mode wrote. */
const sent = { records: 0 };

function hostilePrimary(): Promise<net.Server> {
  const server = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const req = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + req.length);
        const q = dnsPacket.decode(req).questions![0]!;
        if (q.type !== 'SOA' && (state.mode === 'endless' || state.mode === 'drip')) {
          state.transfers.push(q.type);
          const id = req.readUInt16BE(0);
          if (state.mode === 'endless') void streamEndless(socket, id, q, state.serial, sent);
          else void drip(socket, id, q, state.serial, 200);
          continue;
        }
        const answer = answerTo(req);
        if (answer === 'close') return socket.destroy();
        for (const m of signAll(req, answer)) {
          const framed = Buffer.alloc(m.length + 2);
          framed.writeUInt16BE(m.length, 0);
          m.copy(framed, 2);
          socket.write(framed);
        }
        if (state.mode === 'cut' && !dnsPacket.decode(req).questions![0]!.type.endsWith('SOA'))
          socket.end();
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A NOTIFY for `origin`, from `host`, signed with `key` when given; the answer's rcode. */
async function sendNotify(
  port: number,
  origin: string,
  host: string,
  key?: TsigKey,
): Promise<number> {
  const raw = dnsPacket.encode({
    type: 'query',
    id: 4242,
    flags: dnsPacket.AUTHORITATIVE_ANSWER,
    questions: [{ type: 'SOA', name: origin }],
  });
  raw[2] = (raw[2]! & 0x87) | (4 << 3);
  const msg = key ? new TsigSigner(key, nodeHmac, nowSeconds(), undefined).sign(raw) : raw;
  const socket = dgram.createSocket('udp4');
  try {
    await new Promise<void>((r) => socket.bind(0, host, () => r()));
    const answer = new Promise<Buffer>((resolve) => socket.once('message', resolve));
    socket.send(msg, port, '127.0.0.1');
    const a = await answer;
    return a[3]! & 0x0f;
  } finally {
    socket.close();
  }
}

describe('lexroute as a secondary of hostile primaries', () => {
  let primary: net.Server;
  let server: RunningServer;
  let dir: string;
  let port: number;
  const events: Record<string, unknown>[] = [];

  beforeAll(async () => {
    primary = await hostilePrimary();
    const pport = (primary.address() as net.AddressInfo).port;
    dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-hostile-primary-'));
    const log = createLogger(
      (l) => void events.push(JSON.parse(l) as Record<string, unknown>),
      'debug',
      'json',
    );
    server = await startServer({
      config: {
        ...DEFAULT_SERVER_CONFIG,
        listen: [{ host: '127.0.0.1', port: 0 }],
        zones: [
          { origin: ORIGIN, primaries: [{ host: '127.0.0.1', port: pport }] },
          { origin: KEYED, primaries: [{ host: '127.0.0.1', port: pport, key: 'hostile-key' }] },
          {
            origin: LIMITED,
            primaries: [{ host: '127.0.0.1', port: pport }],
            maxRecords: 20_000,
            maxSeconds: 3,
          },
          { origin: SMALL, primaries: [{ host: '127.0.0.1', port: pport }], maxBytes: 300_000 },
        ],
        tsigKeys: [{ name: 'hostile-key', algorithm: 'hmac-sha256', secret: SECRET }],
        transfer: { ...DEFAULT_SERVER_CONFIG.transfer, stateDir: dir },
      },
      log,
      cwd: dir,
    });
    port = server.udp[0]!.port;
    await server.secondaries!.idle();
  });

  afterAll(async () => {
    await server?.close();
    await new Promise((r) => primary?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const servedSerial = async (origin: string) => {
    const r = await query(port, 'udp', origin, 'SOA');
    return r.rcode === 0 ? Number(/"serial":(\d+)/.exec(r.answer[0] ?? '')?.[1]) : -r.rcode;
  };

  /** Raise the primary's serial, answer in `mode`, check the zone; the code of the failure logged. */
  async function attempt(origin: string, mode: Mode): Promise<string | undefined> {
    state.mode = mode;
    state.serial++;
    const from = events.length;
    await server.secondaries!.check(origin, 'test');
    const failed = events.slice(from).filter((e) => e.event === 'xfr_in_failed');
    return failed.at(-1)?.code as string | undefined;
  }

  it('takes the zones by AXFR from the well-behaved primary (TSIG on every message for the keyed zone)', async () => {
    expect(await servedSerial(ORIGIN)).toBe(1);
    expect(await servedSerial(KEYED)).toBe(1);
    expect((await query(port, 'udp', `r4.${KEYED}`, 'NAPTR')).answer).toHaveLength(1);
  });

  it.each([
    ['cut', 'XFR_CUT_SHORT'],
    ['soa-mismatch', 'XFR_SOA_MISMATCH'],
    ['not-dns', 'XFR_BAD_MESSAGE'],
  ] as const)('a stream that is %s fails with %s and keeps the zone served', async (mode, code) => {
    const before = await servedSerial(ORIGIN);
    expect(await attempt(ORIGIN, mode)).toBe(code);
    expect(await servedSerial(ORIGIN)).toBe(before);
    // The IXFR was tried first, then the AXFR fallback, which failed the same way.
    expect(events.some((e) => e.event === 'xfr_in_ixfr_fallback' && e.code === code)).toBe(true);
  });

  it('a wrong TSIG on the third message fails with XFR_TSIG_BAD (no fallback) and keeps the zone', async () => {
    const before = await servedSerial(KEYED);
    state.transfers.length = 0;
    expect(await attempt(KEYED, 'bad-tsig-3')).toBe('XFR_TSIG_BAD');
    expect(state.transfers).toEqual(['SOA', 'IXFR']);
    expect(await servedSerial(KEYED)).toBe(before);
  });

  it('an IXFR refused falls back to AXFR, which succeeds', async () => {
    state.transfers.length = 0;
    expect(await attempt(ORIGIN, 'ixfr-refused')).toBeUndefined();
    expect(state.transfers).toEqual(['SOA', 'IXFR', 'AXFR']);
    expect(await servedSerial(ORIGIN)).toBe(state.serial);
    expect(events.some((e) => e.event === 'xfr_in_ixfr_fallback' && e.code === 'XFR_RCODE')).toBe(
      true,
    );
  });

  it('refuses a transferred zone that zone check rejects (a NAPTR lint error), keeping the version served', async () => {
    const served = await servedSerial(ORIGIN);
    // The one zone path: the transfer is loaded as a zone file is, and refused as zone check fails it.
    expect(await attempt(ORIGIN, 'lint')).toBe('XFR_ZONE_REJECTED');
    expect(await servedSerial(ORIGIN)).toBe(served);
    expect((await query(port, 'udp', `both.${ORIGIN}`, 'NAPTR')).answer).toHaveLength(0);
    const rejected = events.filter((e) => e.event === 'zone_rejected').map((e) => e.code);
    expect(rejected).toContain('NAPTR_BOTH_FIELDS');
    expect(events.filter((e) => e.event === 'xfr_in_lint').map((e) => e.code)).toContain(
      'NAPTR_BOTH_FIELDS',
    );
  });

  it('counts transfers in by result and zone in the metrics', async () => {
    const families = await collectServerMetrics(server, new ZoneStatusBook(), Date.now());
    const xfr = families.find((f) => f.name === 'lexroute_dns_xfr_in_total')!;
    const count = (zone: string, result: string) =>
      xfr.samples.find((s) => s.labels.zone === zone && s.labels.result === result)?.value;
    expect(count(ORIGIN, 'axfr')).toBeGreaterThanOrEqual(2);
    expect(count(ORIGIN, 'failed')).toBeGreaterThanOrEqual(3);
    expect(count(KEYED, 'failed')).toBeGreaterThanOrEqual(1);
    const serials = families.find((f) => f.name === 'lexroute_dns_secondary_serial')!;
    expect(serials.samples.find((s) => s.labels.zone === ORIGIN)?.value).toBe(
      await servedSerial(ORIGIN),
    );
  });

  it.each([
    [LIMITED, 'XFR_TOO_MANY_RECORDS', 20_000],
    [SMALL, 'XFR_TOO_LARGE', 300_000 / 80],
  ] as const)(
    'a never-ending transfer of %s stops at its limit with %s, keeps the zone, and the IXFR does not fall back',
    async (origin, code, bound) => {
      const before = await servedSerial(origin);
      expect(before).toBeGreaterThan(0);
      const t0 = performance.now();
      sent.records = 0;
      state.transfers.length = 0;
      expect(await attempt(origin, 'endless')).toBe(code);
      const ms = Math.round(performance.now() - t0);
      expect(state.transfers).toEqual(['SOA', 'IXFR']);
      expect(await servedSerial(origin)).toBe(before);
      const failed = events.filter((e) => e.event === 'xfr_in_failed').at(-1)!;
      // The primary wrote what the socket buffers took beyond the limit, no more than that.
      console.log(
        `${code}: ${sent.records} records sent, stopped in ${ms} ms: ${String(failed.error)}`,
      );
      expect(sent.records).toBeLessThan(bound * 20);
    },
  );

  it('a slow drip (an octet every 200 ms, the idle timer never fires) is stopped at the deadline with XFR_TIME_LIMIT', async () => {
    const before = await servedSerial(LIMITED);
    const t0 = performance.now();
    expect(await attempt(LIMITED, 'drip')).toBe('XFR_TIME_LIMIT');
    const seconds = (performance.now() - t0) / 1000;
    console.log(`drip stopped after ${seconds.toFixed(1)} s (maxSeconds 3)`);
    expect(await servedSerial(LIMITED)).toBe(before);
  });

  it.each([
    ['older', 'an AXFR'],
    ['older-ixfr', 'an IXFR that chains from the version held'],
  ] as const)(
    'a transfer (%s: %s) ending on an older serial than served fails with XFR_SERIAL_OLDER; the zone is kept',
    async (mode, _what) => {
      await attempt(ORIGIN, 'good');
      const before = await servedSerial(ORIGIN);
      expect(before).toBe(state.serial);
      state.olderSerial = before - 1;
      expect(await attempt(ORIGIN, mode)).toBe('XFR_SERIAL_OLDER');
      expect(await servedSerial(ORIGIN)).toBe(before);
    },
  );

  it('ctl retransfer --force installs an older serial (the operator going back); without --force it is refused', async () => {
    const before = await servedSerial(ORIGIN);
    state.mode = 'good';
    state.serial = before - 2;
    const plain = await server.secondaries!.retransfer(ORIGIN, false);
    expect(plain?.error?.code).toBe('XFR_SERIAL_OLDER');
    expect(await servedSerial(ORIGIN)).toBe(before);
    const forced = await server.secondaries!.retransfer(ORIGIN, true);
    expect(forced).toEqual({ serial: before - 2 });
    expect(await servedSerial(ORIGIN)).toBe(before - 2);
    state.serial = before;
  });

  it('an IXFR whose difference starts from a serial not held fails with XFR_IXFR_SEQUENCE, then the AXFR is taken', async () => {
    const from = events.length;
    expect(await attempt(ORIGIN, 'ixfr-mismatch')).toBeUndefined();
    expect(await servedSerial(ORIGIN)).toBe(state.serial);
    const fallback = events.slice(from).find((e) => e.event === 'xfr_in_ixfr_fallback');
    expect(fallback?.code).toBe('XFR_IXFR_SEQUENCE');
  });

  it('takes NOTIFY only from a primary, with its key', async () => {
    // Not from a primary's address.
    expect(await sendNotify(port, ORIGIN, '127.0.0.2')).toBe(5);
    // The keyed zone: unsigned is REFUSED, a wrong key NOTAUTH (RFC 8945 section 5.2), the right one NOERROR.
    expect(await sendNotify(port, KEYED, '127.0.0.1')).toBe(5);
    const wrong = { ...KEY, secret: new Uint8Array(32).fill(7) };
    expect(await sendNotify(port, KEYED, '127.0.0.1', wrong)).toBe(9);
    // A zone that is not a secondary zone here.
    expect(await sendNotify(port, 'other.test.', '127.0.0.1')).toBe(5);
    state.mode = 'good';
    state.serial++;
    expect(await sendNotify(port, KEYED, '127.0.0.1', KEY)).toBe(0);
    await server.secondaries!.idle();
    expect(await servedSerial(KEYED)).toBe(state.serial);
    // Refusals are counted and written as one summary line per interval.
    expect(events.filter((e) => e.event === 'notify_refused')).toEqual([]);
    server.secondaries!.flushLog();
    const lines = events.filter((e) => e.event === 'notify_refused');
    expect(lines).toHaveLength(1);
    // The wrong key's BADSIG is the query pipeline's (it verifies TSIG before the NOTIFY is looked at).
    expect(lines[0]).toMatchObject({
      count: 3,
      sources: 2,
      reasons: { NOTIFY_REFUSED: 2, NOTIFY_TSIG: 1 },
    });
  });
});
