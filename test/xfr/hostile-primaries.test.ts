/**
 * lexroute as a secondary of hostile primaries: a small TCP server written
 * here answers the SOA query and sends crafted AXFR/IXFR streams. A stream
 * cut in the middle, one whose last SOA differs from the first, one with a
 * wrong TSIG on its third message, and one with a message that is not a DNS
 * message each fail with their code (`xfr_in_failed`) and leave the
 * version served before. IXFR errors fall back to AXFR. NOTIFY is taken
 * only from a primary's address, with its key when it has one.
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

const ORIGIN = 'hostile.test.';
const KEYED = 'keyed.hostile.test.';
const SECRET = 'aG9zdGlsZS1wcmltYXJ5LWtleS0xMjM0NTY3ODkwYWI=';
const KEY: TsigKey = {
  name: 'hostile-key.',
  algorithm: 'hmac-sha256',
  secret: new Uint8Array(Buffer.from(SECRET, 'base64')),
};

type Mode = 'good' | 'cut' | 'soa-mismatch' | 'bad-tsig-3' | 'not-dns' | 'ixfr-refused' | 'lint';

/** The primary's state: the serial it serves and how it answers transfers. */
const state = { serial: 1, mode: 'good' as Mode, transfers: [] as string[] };

function soa(origin: string, serial: number): dnsPacket.Answer {
  return {
    type: 'SOA',
    name: origin,
    ttl: 60,
    data: {
      mname: `ns1.${origin}`,
      rname: `hostmaster.${origin}`,
      serial,
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minimum: 60,
    },
  } as dnsPacket.Answer;
}

/** The zone's records between its SOAs: NS, A, and NAPTRs named r0..r<serial+4>. */
function body(origin: string, serial: number): dnsPacket.Answer[] {
  const out: dnsPacket.Answer[] = [
    { type: 'NS', name: origin, ttl: 60, data: `ns1.${origin}` },
    { type: 'A', name: `ns1.${origin}`, ttl: 60, data: '127.0.0.1' },
  ];
  for (let i = 0; i < serial + 4; i++)
    out.push({
      type: 'NAPTR',
      name: `r${i}.${origin}`,
      ttl: 60,
      data: {
        order: 100,
        preference: 10,
        flags: 'u',
        services: 'http+N2L',
        regexp: `!^(.*)$!http://127.0.0.1/${i}?\\1!`,
        replacement: '.',
      },
    } as dnsPacket.Answer);
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
  const last = mode === 'soa-mismatch' ? state.serial + 1 : state.serial;
  // 'lint': a record the NAPTR lint finds fault with (REGEXP and REPLACEMENT both set).
  const extra: dnsPacket.Answer[] =
    mode === 'lint'
      ? [
          {
            type: 'NAPTR',
            name: `both.${origin}`,
            ttl: 60,
            data: {
              order: 100,
              preference: 10,
              flags: 'u',
              services: 'http+N2L',
              regexp: '!^(.*)$!http://127.0.0.1/?\\1!',
              replacement: `target.${origin}`,
            },
          } as dnsPacket.Answer,
        ]
      : [];
  const records = [
    soa(origin, state.serial),
    ...body(origin, state.serial),
    ...extra,
    soa(origin, last),
  ];
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

function hostilePrimary(): Promise<net.Server> {
  const server = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const req = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + req.length);
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
    const refused = events.filter((e) => e.event === 'notify_refused').map((e) => e.code);
    expect(refused).toEqual(['NOTIFY_REFUSED', 'NOTIFY_TSIG', 'NOTIFY_TSIG', 'NOTIFY_REFUSED']);
  });
});
