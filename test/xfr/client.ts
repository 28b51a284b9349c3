/**
 * A raw transfer client for the tests: one TCP connection, one AXFR or IXFR
 * query, every message of the answer read until the closing SOA (or an
 * error rcode, or the connection's end), decoded with dns-packet.
 */
import net from 'node:net';
import dnsPacket from 'dns-packet';

export interface XfrResult {
  rcode: number;
  messages: number;
  records: dnsPacket.Answer[];
  /** Every message's raw octets. */
  raw: Buffer[];
  /** The answer ended with the closing SOA. */
  complete: boolean;
}

/** A framed AXFR/IXFR query; `serial` adds the client's SOA in the authority section (IXFR). */
export function xfrQuery(
  origin: string,
  qtype: 'AXFR' | 'IXFR',
  serial?: number,
  id = 4242,
): Buffer {
  const name = origin.replace(/\.$/, '');
  const q = dnsPacket.encode({
    type: 'query',
    id,
    flags: 0,
    questions: [{ name, type: qtype, class: 'IN' }],
    authorities:
      serial === undefined
        ? []
        : [
            {
              name,
              type: 'SOA',
              ttl: 0,
              data: {
                mname: '.',
                rname: '.',
                serial,
                refresh: 0,
                retry: 0,
                expire: 0,
                minimum: 0,
              },
            },
          ],
  });
  const framed = Buffer.alloc(q.length + 2);
  framed.writeUInt16BE(q.length, 0);
  q.copy(framed, 2);
  return framed;
}

/** Send `query` (framed) and read the whole answer. */
export function xfr(port: number, query: Buffer, timeoutMs = 10_000): Promise<XfrResult> {
  return new Promise((resolve, reject) => {
    const out: XfrResult = { rcode: -1, messages: 0, records: [], raw: [], complete: false };
    let buf = Buffer.alloc(0);
    let soas = 0;
    let firstSerial: number | undefined;
    const s = net.connect(port, '127.0.0.1', () => s.write(query));
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`transfer not finished after ${timeoutMs} ms (${out.messages} messages)`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      s.destroy();
      resolve(out);
    };
    s.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    s.on('close', () => done());
    s.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + msg.length);
        out.messages++;
        out.raw.push(Buffer.from(msg));
        out.rcode = msg[3]! & 0xf;
        if (out.rcode !== 0) return done();
        const p = dnsPacket.decode(msg);
        for (const a of p.answers ?? []) {
          out.records.push(a);
          if (a.type !== 'SOA') continue;
          const serial = (a.data as { serial: number }).serial;
          if (firstSerial === undefined) firstSerial = serial;
          soas++;
          // The answer ends with the second copy of the first (current) SOA, after
          // at least one other record; a lone SOA (IXFR: up to date) ends it too.
          if (soas > 1 && serial === firstSerial && out.records.length > 1) {
            const rest = p.answers!.slice(p.answers!.indexOf(a) + 1);
            if (rest.length === 0) {
              out.complete = true;
              return done();
            }
          }
        }
        if (
          out.messages === 1 &&
          out.records.length === 1 &&
          p.answers?.length === 1 &&
          isIxfr(query)
        ) {
          // IXFR, up to date: one message with the single current SOA.
          out.complete = true;
          return done();
        }
      }
    });
  });
}

function isIxfr(framed: Buffer): boolean {
  const p = dnsPacket.decode(framed.subarray(2));
  return p.questions?.[0]?.type === 'IXFR';
}
