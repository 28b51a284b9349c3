/**
 * What a hostile primary sends after the SOA of a transfer: valid records
 * without end (messages of `perMessage` NAPTR records, written as fast as
 * the secondary reads them, never the closing SOA), or one octet every
 * `dripMs` (a stream that never lets an idle timer fire). Used by
 * `hostile-primaries.test.ts`, the child-process test under a heap limit
 * (`hostile-heap.test.ts`) and `bench/hostile-primary.ts`.
 */
import net from 'node:net';
import * as dnsPacket from 'dns-packet';

export function soaAnswer(origin: string, serial: number): dnsPacket.Answer {
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

/** The NAPTR record `r<i>` of `origin`. */
export function naptr(origin: string, i: number): dnsPacket.Answer {
  return {
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
  } as dnsPacket.Answer;
}

/** One framed answer message (two-octet length first). */
export function framed(id: number, answers: dnsPacket.Answer[], q?: dnsPacket.Question): Buffer {
  const m = dnsPacket.encode({
    type: 'response',
    id,
    flags: dnsPacket.AUTHORITATIVE_ANSWER,
    questions: q ? [q] : [],
    answers,
  });
  const out = Buffer.alloc(m.length + 2);
  out.writeUInt16BE(m.length, 0);
  m.copy(out, 2);
  return out;
}

/** The SOA, then NAPTR records until the socket closes; counts the records written in `sent`. */
export async function streamEndless(
  socket: net.Socket,
  id: number,
  q: dnsPacket.Question,
  serial: number,
  sent: { records: number } = { records: 0 },
  perMessage = 400,
): Promise<void> {
  const origin = `${q.name.toLowerCase().replace(/\.$/, '')}.`;
  let i = 0;
  let first = true;
  while (!socket.destroyed && socket.writable) {
    const answers = first ? [soaAnswer(origin, serial)] : [];
    for (let n = 0; n < perMessage; n++) answers.push(naptr(origin, i++));
    sent.records += answers.length;
    const ok = socket.write(framed(id, answers, first ? q : undefined));
    first = false;
    if (!ok)
      await new Promise<void>((resolve) => {
        const go = () => {
          socket.off('drain', go);
          socket.off('close', go);
          resolve();
        };
        socket.on('drain', go);
        socket.on('close', go);
      });
  }
}

/** The first message of an AXFR, one octet every `dripMs`, until the socket closes. */
export async function drip(
  socket: net.Socket,
  id: number,
  q: dnsPacket.Question,
  serial: number,
  dripMs: number,
): Promise<void> {
  const origin = `${q.name.toLowerCase().replace(/\.$/, '')}.`;
  const bytes = framed(id, [soaAnswer(origin, serial), naptr(origin, 0), naptr(origin, 1)], q);
  for (let i = 0; i < bytes.length && !socket.destroyed; i++) {
    socket.write(bytes.subarray(i, i + 1));
    await new Promise((r) => setTimeout(r, dripMs));
  }
}

/** The question and ID of a framed request at the start of `buf`, or undefined while incomplete. */
export function takeRequest(
  buf: Buffer,
): { id: number; q: dnsPacket.Question; req: Buffer; rest: Buffer } | undefined {
  if (buf.length < 2 || buf.length < 2 + buf.readUInt16BE(0)) return undefined;
  const req = buf.subarray(2, 2 + buf.readUInt16BE(0));
  const q = dnsPacket.decode(req).questions![0]!;
  return { id: req.readUInt16BE(0), q, req, rest: buf.subarray(2 + req.length) };
}

type Request = NonNullable<ReturnType<typeof takeRequest>>;

/** A TCP server on `host` that hands each framed request to `onRequest`. */
function primaryServer(
  host: string,
  onRequest: (socket: net.Socket, r: Request) => void,
): Promise<{ server: net.Server; port: number }> {
  const server = net.createServer((socket) => {
    let buf: Buffer = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (let r = takeRequest(buf); r; r = takeRequest(buf)) {
        buf = r.rest;
        onRequest(socket, r);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, host, () =>
      resolve({ server, port: (server.address() as net.AddressInfo).port }),
    ),
  );
}

/**
 * A primary that answers SOA queries with `serial` and every AXFR or IXFR
 * with an endless stream (`mode: 'endless'`) or a drip (`'drip'`); `sent`
 * counts the records written.
 */
export async function endlessPrimary(
  mode: 'endless' | 'drip',
  serial: number,
  host = '127.0.0.1',
  dripMs = 2000,
): Promise<{ server: net.Server; port: number; sent: { records: number } }> {
  const sent = { records: 0 };
  const p = await primaryServer(host, (socket, r) => {
    if (r.q.type === 'SOA') socket.write(framed(r.id, [soaAnswer(r.q.name, serial)], r.q));
    else if (mode === 'endless') void streamEndless(socket, r.id, r.q, serial, sent);
    else void drip(socket, r.id, r.q, serial, dripMs);
  });
  return { ...p, sent };
}

/**
 * A primary whose SOA answer and transfers carry serials set from outside
 * (`serials.soa`, `serials.xfr`): a transfer may end on another serial
 * than the SOA query announced. Every AXFR or IXFR is answered with the
 * whole zone (the SOA, an NS, an A, the SOA).
 */
export function scriptedPrimary(
  serials: { soa: number; xfr: number },
  host = '127.0.0.1',
): Promise<{ server: net.Server; port: number }> {
  return primaryServer(host, (socket, r) => {
    const origin = `${r.q.name.toLowerCase().replace(/\.$/, '')}.`;
    if (r.q.type === 'SOA') {
      socket.write(framed(r.id, [soaAnswer(origin, serials.soa)], r.q));
      return;
    }
    const soa = soaAnswer(origin, serials.xfr);
    const body: dnsPacket.Answer[] = [
      { type: 'NS', name: origin, ttl: 60, data: `ns1.${origin}` },
      { type: 'A', name: `ns1.${origin}`, ttl: 60, data: '127.0.0.1' },
    ];
    socket.write(framed(r.id, [soa, ...body, soa], r.q));
  });
}
