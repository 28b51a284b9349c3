/**
 * A tiny authoritative DNS server for client tests, on dgram + net +
 * dns-packet. It knows zones, delegations (NS + glue), CNAMEs, NXDOMAIN and
 * NODATA with the SOA, truncation to the requester's UDP size, and TCP. A
 * `hook` lets a test replace the answer with hostile behaviour.
 *
 * This is test scaffolding: the client is also tested against the real
 * `lexroute serve` and against NSD/Knot.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import * as dnsPacket from 'dns-packet';
import type { Answer, Packet, RecordType } from 'dns-packet';

export interface FakeRecord {
  readonly name: string;
  readonly type: RecordType;
  readonly ttl?: number;
  readonly data: unknown;
}

export interface FakeZone {
  readonly origin: string;
  readonly records: readonly FakeRecord[];
}

export interface HookContext {
  readonly query: Packet & { id: number };
  readonly raw: Buffer;
  readonly protocol: 'udp' | 'tcp';
  /** The normal answer this server would give. */
  answer(): Packet;
  encode(p: Packet): Buffer;
}

/**
 * What to send: a packet, raw bytes, several datagrams (UDP), or nothing
 * (`null`: stay silent). `undefined` means "do the normal thing".
 */
export type HookResult = Packet | Buffer | Buffer[] | null | undefined;

export interface FakeDnsOptions {
  readonly host?: string;
  readonly port?: number;
  readonly zones: readonly FakeZone[];
  readonly hook?: (ctx: HookContext) => HookResult | Promise<HookResult>;
  /** Answer over TCP as well (default true). */
  readonly tcp?: boolean;
}

export interface FakeDns {
  readonly host: string;
  readonly port: number;
  readonly address: string;
  readonly log: {
    name: string;
    type: string;
    protocol: 'udp' | 'tcp';
    id: number;
    srcPort: number;
  }[];
  close(): Promise<void>;
}

export function canon(n: string): string {
  const s = n.endsWith('.') ? n.slice(0, -1) : n;
  return s.toLowerCase();
}

function isUnder(name: string, origin: string): boolean {
  return origin === '' || name === origin || name.endsWith(`.${origin}`);
}

function rr(r: FakeRecord): Answer {
  return {
    name: canon(r.name),
    type: r.type,
    ttl: r.ttl ?? 300,
    class: 'IN',
    data: r.data,
  } as Answer;
}

/** The authoritative answer of `zones` to (qname, qtype). */
export function authoritativeAnswer(
  zones: readonly FakeZone[],
  id: number,
  qname: string,
  qtype: RecordType,
): Packet {
  const name = canon(qname);
  const base = {
    type: 'response' as const,
    id,
    questions: [{ name: qname, type: qtype, class: 'IN' as const }],
  };
  const zone = [...zones]
    .filter((z) => isUnder(name, canon(z.origin)))
    .sort((a, b) => canon(b.origin).length - canon(a.origin).length)[0];
  if (!zone) return { ...base, flags: 5 }; // REFUSED
  const origin = canon(zone.origin);
  const recs = zone.records.map((r) => ({ ...r, name: canon(r.name) }));
  const soa = recs.filter((r) => r.name === origin && r.type === 'SOA').map(rr);
  // Delegation: the highest NS cut strictly below the apex on the way to name.
  const labels = name === '' ? [] : name.split('.');
  const originLabels = origin === '' ? 0 : origin.split('.').length;
  for (let i = labels.length - originLabels - 1; i >= 0; i--) {
    const cut = labels.slice(i).join('.');
    if (cut === origin) continue;
    const ns = recs.filter((r) => r.name === cut && r.type === 'NS');
    if (ns.length > 0) {
      const glue = recs.filter(
        (r) =>
          (r.type === 'A' || r.type === 'AAAA') && ns.some((n) => canon(String(n.data)) === r.name),
      );
      return {
        ...base,
        flags: 0,
        authorities: ns.map(rr),
        additionals: glue.map(rr),
      };
    }
  }
  const answers: Answer[] = [];
  let current = name;
  for (let hops = 0; hops < 8; hops++) {
    const atName = recs.filter((r) => r.name === current);
    const cname = atName.find((r) => r.type === 'CNAME');
    if (cname && qtype !== 'CNAME') {
      answers.push(rr(cname));
      current = canon(String(cname.data));
      if (!isUnder(current, origin)) break;
      continue;
    }
    const matching = atName.filter((r) => r.type === qtype);
    if (matching.length > 0) {
      answers.push(...matching.map(rr));
      const additionals: Answer[] = [];
      return { ...base, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers, additionals };
    }
    const exists =
      atName.length > 0 || recs.some((r) => r.name.endsWith(`.${current}`)) || current === origin;
    if (answers.length > 0) break;
    return {
      ...base,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (exists ? 0 : 3),
      authorities: soa,
    };
  }
  return { ...base, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers };
}

function udpLimit(q: Packet): number {
  const opt = (q.additionals ?? []).find((a) => a.type === 'OPT') as
    { udpPayloadSize?: number } | undefined;
  return opt ? Math.max(512, opt.udpPayloadSize ?? 512) : 512;
}

export async function startFakeDns(options: FakeDnsOptions): Promise<FakeDns> {
  const host = options.host ?? '127.0.0.1';
  const log: FakeDns['log'] = [];
  let udp = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  let port = 0;

  const respond = async (
    raw: Buffer,
    protocol: 'udp' | 'tcp',
    srcPort: number,
  ): Promise<HookResult> => {
    let query: Packet & { id: number };
    try {
      query = dnsPacket.decode(raw) as Packet & { id: number };
    } catch {
      return null;
    }
    const q = query.questions?.[0];
    if (!q) return null;
    log.push({ name: q.name, type: q.type, protocol, id: query.id, srcPort });
    const answer = () => authoritativeAnswer(options.zones, query.id, q.name, q.type);
    const ctx: HookContext = { query, raw, protocol, answer, encode: (p) => dnsPacket.encode(p) };
    const hooked = options.hook ? await options.hook(ctx) : undefined;
    if (hooked !== undefined) return hooked;
    return answer();
  };

  const onUdp = (msg: Buffer, rinfo: dgram.RemoteInfo): void => {
    void respond(msg, 'udp', rinfo.port).then((out) => {
      if (out === null || out === undefined) return;
      const send = (b: Buffer) => udp.send(b, rinfo.port, rinfo.address);
      if (Array.isArray(out)) {
        for (const b of out) send(b);
        return;
      }
      if (Buffer.isBuffer(out)) {
        send(out);
        return;
      }
      let wire = dnsPacket.encode(out);
      const query = dnsPacket.decode(msg);
      if (wire.length > udpLimit(query)) {
        wire = dnsPacket.encode({
          type: 'response',
          id: out.id ?? 0,
          flags: (out.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE,
          questions: out.questions ?? [],
        });
      }
      send(wire);
    });
  };

  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2) {
        const len = buf.readUInt16BE(0);
        if (buf.length < len + 2) break;
        const msg = buf.subarray(2, len + 2);
        buf = buf.subarray(len + 2);
        void respond(msg, 'tcp', socket.remotePort ?? 0).then(async (out) => {
          if (out === null || out === undefined) return;
          if (Array.isArray(out)) {
            // Separate writes with pauses, so the client sees partial reads.
            for (const b of out) {
              if (socket.destroyed) return;
              socket.write(b);
              await new Promise((r) => setTimeout(r, 5));
            }
            return;
          }
          if (Buffer.isBuffer(out)) {
            socket.write(out);
            return;
          }
          socket.write(dnsPacket.streamEncode(out));
        });
      }
    });
  });
  // UDP on a kernel-chosen port, then TCP on the same port. Another process
  // may hold that TCP port (an outgoing connection): then take another one.
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) udp = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(options.port ?? 0, host, () => resolve());
    });
    port = udp.address().port;
    if (options.tcp === false) break;
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, host, () => {
          tcp.off('error', reject);
          resolve();
        });
      });
      break;
    } catch (e) {
      await new Promise<void>((r) => udp.close(() => r()));
      const code = (e as NodeJS.ErrnoException).code;
      if (options.port !== undefined || code !== 'EADDRINUSE' || attempt >= 20) throw e;
    }
  }
  udp.on('message', onUdp);
  const address = net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
  return {
    host,
    port,
    address,
    log,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => udp.close(() => r()));
      if (options.tcp !== false) await new Promise<void>((r) => tcp.close(() => r()));
    },
  };
}

/** A free port on `host` for both UDP and TCP (for several servers sharing one port). */
export async function freePortOn(hosts: readonly string[]): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const probe = dgram.createSocket('udp4');
    const port = await new Promise<number>((resolve, reject) => {
      probe.once('error', reject);
      probe.bind(0, hosts[0], () => resolve(probe.address().port));
    });
    await new Promise<void>((r) => probe.close(() => r()));
    let ok = true;
    for (const h of hosts) {
      if (!(await canBind(h, port))) {
        ok = false;
        break;
      }
    }
    if (ok) return port;
  }
  throw new Error('no free port found');
}

async function canBind(host: string, port: number): Promise<boolean> {
  const u = dgram.createSocket('udp4');
  const okU = await new Promise<boolean>((resolve) => {
    u.once('error', () => resolve(false));
    u.bind(port, host, () => resolve(true));
  });
  if (okU) await new Promise<void>((r) => u.close(() => r()));
  if (!okU) return false;
  const t = net.createServer();
  const okT = await new Promise<boolean>((resolve) => {
    t.once('error', () => resolve(false));
    t.listen(port, host, () => resolve(true));
  });
  if (okT) await new Promise<void>((r) => t.close(() => r()));
  return okT;
}
