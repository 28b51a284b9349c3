/**
 * Test harness: the real server on 127.0.0.1 (port 0), queried over real
 * UDP and TCP sockets; responses decoded with dns-packet.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import { DEFAULT_SERVER_CONFIG, type ServerConfig } from '../../src/config/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';
import { typeName } from '../../src/dns/core/rr/types.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const SAMPLE_ZONES = path.join(REPO, 'zones');
export const TEST_ZONES = path.join(import.meta.dirname, 'data');

export interface Harness {
  server: RunningServer;
  port: number;
  logs: string[];
  close(): Promise<void>;
}

export async function startTestServer(
  zones: readonly string[],
  overrides: Partial<ServerConfig> = {},
): Promise<Harness> {
  const logs: string[] = [];
  const config: ServerConfig = {
    ...DEFAULT_SERVER_CONFIG,
    listen: [{ host: '127.0.0.1', port: 0 }],
    zones,
    ...overrides,
  };
  const log = createLogger((l) => void logs.push(l), 'debug', 'json');
  const server = await startServer({ config, log, cwd: REPO });
  return { server, port: server.udp[0]!.port, logs, close: () => server.close() };
}

/**
 * A server whose `files` are served as they are, below the zone path: a
 * signature corrupted on purpose, for a validator to find bogus. `serve`
 * refuses such a file, as `zone check` does (test/server/zone-path.test.ts);
 * only a test puts one into the engine. `good` files load as usual.
 */
export async function startBogusServer(
  files: readonly string[],
  good: readonly string[] = [],
): Promise<Harness> {
  const h = await startTestServer(good, { allowEmpty: true });
  const zones = [];
  for (const f of files) {
    const r = await loadZoneFile(f);
    if (!r.zone) throw new Error(`${f} does not load: ${JSON.stringify(r.diagnostics)}`);
    zones.push(r.zone);
  }
  h.server.engine.setZones([...h.server.engine.zones, ...zones]);
  return h;
}

export type Transport = 'udp' | 'tcp';

/** Send raw octets over UDP; resolves with the response or undefined after `timeoutMs`. */
export function udpRaw(
  port: number,
  msg: Uint8Array,
  timeoutMs = 1000,
): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      s.close();
      resolve(undefined);
    }, timeoutMs);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      resolve(m);
    });
    s.send(msg, port, '127.0.0.1');
  });
}

/** Send raw messages over one TCP connection (pipelined); resolves with the responses in arrival order. */
export function tcpRaw(
  port: number,
  msgs: readonly Uint8Array[],
  expect = msgs.length,
  timeoutMs = 2000,
): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const sock = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      sock.destroy();
      resolve(out);
    }, timeoutMs);
    sock.on('error', reject);
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const len = buf.readUInt16BE(0);
        out.push(buf.subarray(2, 2 + len));
        buf = buf.subarray(2 + len);
      }
      if (out.length >= expect) {
        clearTimeout(timer);
        sock.destroy();
        resolve(out);
      }
    });
    sock.on('connect', () => {
      const frames = msgs.map((m) => {
        const f = Buffer.alloc(2 + m.length);
        f.writeUInt16BE(m.length, 0);
        Buffer.from(m).copy(f, 2);
        return f;
      });
      sock.write(Buffer.concat(frames));
    });
  });
}

export interface QueryOptions {
  id?: number;
  rd?: boolean;
  edns?:
    | boolean
    | {
        udpSize?: number;
        version?: number;
        do?: boolean;
        options?: { code: number; data: Buffer }[];
      };
  opcode?: number;
  qclass?: number;
  /** Checking Disabled (RFC 4035 section 3.2.2). */
  cd?: boolean;
}

/** Build a query message. */
let typeCodes: Map<string, number> | undefined;

/** The numeric code of a type given by number, mnemonic or TYPEnnn (RFC 3597). */
export function typeCode(qtype: string | number): number {
  if (typeof qtype === 'number') return qtype;
  const generic = /^TYPE(\d+)$/i.exec(qtype);
  if (generic) return Number(generic[1]);
  if (!typeCodes) {
    typeCodes = new Map();
    for (let code = 1; code < 65536; code++) {
      const name = typeName(code);
      if (!name.startsWith('TYPE')) typeCodes.set(name, code);
    }
  }
  const code = typeCodes.get(qtype.toUpperCase());
  if (code === undefined) throw new Error(`unknown type ${qtype}`);
  return code;
}

export function buildQuery(qname: string, qtype: string | number, o: QueryOptions = {}): Buffer {
  const q = dnsPacket.encode({
    type: 'query',
    id: o.id ?? 0x1234,
    flags: o.rd === false ? 0 : dnsPacket.RECURSION_DESIRED,
    questions: [
      {
        name: qname,
        type: 'A',
        class: 'IN',
      },
    ],
  });
  let msg = Buffer.from(q);
  // dns-packet encodes types it does not know (SVCB, HTTPS, TYPEnnn) as 0: write the code itself.
  msg.writeUInt16BE(typeCode(qtype), msg.length - 4);
  if (o.qclass !== undefined) {
    const end = msg.length;
    msg.writeUInt16BE(o.qclass, end - 2);
  }
  if (o.opcode !== undefined) msg[2] = (msg[2]! & 0x87) | ((o.opcode & 0xf) << 3);
  if (o.cd) msg[3] = msg[3]! | 0x10;
  if (o.edns) {
    const e = o.edns === true ? {} : o.edns;
    const opts = e.options ?? [];
    const rdlen = opts.reduce((n, x) => n + 4 + x.data.length, 0);
    const opt = Buffer.alloc(11 + rdlen);
    opt[0] = 0;
    opt.writeUInt16BE(41, 1);
    opt.writeUInt16BE(e.udpSize ?? 1232, 3);
    opt[5] = 0;
    opt[6] = e.version ?? 0;
    opt[7] = e.do ? 0x80 : 0;
    opt[8] = 0;
    opt.writeUInt16BE(rdlen, 9);
    let o2 = 11;
    for (const x of opts) {
      opt.writeUInt16BE(x.code, o2);
      opt.writeUInt16BE(x.data.length, o2 + 2);
      x.data.copy(opt, o2 + 4);
      o2 += 4 + x.data.length;
    }
    msg = Buffer.concat([msg, opt]);
    msg.writeUInt16BE(msg.readUInt16BE(10) + 1, 10);
  }
  return msg;
}

export interface Decoded {
  raw: Buffer;
  id: number;
  rcode: number;
  /** Extended RCODE including the OPT high bits. */
  fullRcode: number;
  aa: boolean;
  tc: boolean;
  rd: boolean;
  ra: boolean;
  opcode: number;
  qdcount: number;
  question?: { name: string; type: string };
  answer: string[];
  authority: string[];
  additional: string[];
  opt?: { udpSize: number; version: number; do: boolean };
}

function rrText(a: dnsPacket.Answer): string {
  const data = 'data' in a ? a.data : undefined;
  let d: string;
  if (a.type === 'NAPTR' && data && typeof data === 'object') {
    const n = data as {
      order: number;
      preference: number;
      flags: string;
      services: string;
      regexp: string;
      replacement: string;
    };
    d = `${n.order} ${n.preference} "${n.flags}" "${n.services}" "${n.regexp}" ${n.replacement || '.'}`;
  } else if (Buffer.isBuffer(data)) d = data.toString('hex');
  else if (Array.isArray(data))
    d = data.map((x) => (Buffer.isBuffer(x) ? x.toString() : String(x))).join(' ');
  else if (data && typeof data === 'object') d = JSON.stringify(data);
  else d = String(data);
  const type = String(a.type).startsWith('UNKNOWN_')
    ? typeName(Number(String(a.type).slice(8)))
    : a.type;
  return `${a.name.toLowerCase()} ${'ttl' in a ? a.ttl : ''} ${type} ${d}`;
}

export function decode(raw: Buffer): Decoded {
  const p = dnsPacket.decode(raw);
  const flags = raw.readUInt16BE(2);
  const optRr = p.additionals?.find((a) => a.type === 'OPT') as
    | (dnsPacket.Answer & {
        udpPayloadSize?: number;
        extendedRcode?: number;
        ednsVersion?: number;
        flag_do?: boolean;
      })
    | undefined;
  let opt: Decoded['opt'];
  let ext = 0;
  if (optRr) {
    opt = {
      udpSize: (optRr as { udpPayloadSize?: number }).udpPayloadSize ?? 0,
      version: (optRr as { ednsVersion?: number }).ednsVersion ?? 0,
      do: Boolean(((optRr as { flags?: number }).flags ?? 0) & 0x8000),
    };
    ext = (optRr as { extendedRcode?: number }).extendedRcode ?? 0;
  }
  const q = p.questions?.[0];
  return {
    raw,
    id: raw.readUInt16BE(0),
    rcode: flags & 0xf,
    fullRcode: (ext << 4) | (flags & 0xf),
    aa: (flags & 0x0400) !== 0,
    tc: (flags & 0x0200) !== 0,
    rd: (flags & 0x0100) !== 0,
    ra: (flags & 0x0080) !== 0,
    opcode: (flags >> 11) & 0xf,
    qdcount: raw.readUInt16BE(4),
    ...(q ? { question: { name: q.name, type: q.type } } : {}),
    answer: (p.answers ?? []).map(rrText),
    authority: (p.authorities ?? []).map(rrText),
    additional: (p.additionals ?? []).filter((a) => a.type !== 'OPT').map(rrText),
    ...(opt ? { opt } : {}),
  };
}

export async function query(
  port: number,
  transport: Transport,
  qname: string,
  qtype: string | number,
  o: QueryOptions = {},
): Promise<Decoded> {
  const msg = buildQuery(qname, qtype, o);
  if (transport === 'udp') {
    const r = await udpRaw(port, msg);
    if (!r) throw new Error(`no UDP response for ${qname} ${qtype}`);
    return decode(r);
  }
  const [r] = await tcpRaw(port, [msg]);
  if (!r) throw new Error(`no TCP response for ${qname} ${qtype}`);
  return decode(r);
}

/** RRsets as sorted "owner type" strings (order-insensitive section comparison). */
export function names(rrs: readonly string[]): string[] {
  return rrs
    .map((r) =>
      r
        .split(' ')
        .filter((_, i) => i === 0 || i === 2)
        .join(' '),
    )
    .sort();
}
