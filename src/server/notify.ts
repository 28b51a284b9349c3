/**
 * NOTIFY out (RFC 1996): after a reload that raised a zone's serial, tell
 * each configured secondary, over UDP, and retry with a doubling timeout
 * until it answers. Each peer's answer (its rcode) or the giving up is
 * logged.
 *
 * @see RFC 1996 section 3.6: "the master [...] periodically sends a NOTIFY
 * request to the slave until either too many copies have been sent (a
 * 'timeout'), an ICMP message indicating that the port is unreachable, or
 * until a NOTIFY response is received"; section 3.7: the query carries the
 * zone's SOA in the answer section ("QDCOUNT=1 [...] ANCOUNT>=0").
 */
import dgram from 'node:dgram';
import { randomInt } from 'node:crypto';
import type { Zone } from '../core/zone/model.ts';
import { soaRecord } from '../core/xfr/records.ts';
import { XfrMessageWriter } from '../core/xfr/message.ts';
import { keyToWire } from '../core/wire/name.ts';
import type { ListenAddress } from '../config/server.ts';
import type { Logger } from './log.ts';

const RCODES = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
];
const OPCODE_NOTIFY = 4;

export interface NotifyOptions {
  /** Sends at most this many copies to a peer. */
  readonly tries: number;
  /** Wait for the first answer; each retry waits twice as long. */
  readonly timeoutMs: number;
}

/** The NOTIFY message for a zone: SOA question, AA, the current SOA in the answer section. */
export function notifyMessage(zone: Zone, id: number): Uint8Array {
  const soa = soaRecord(zone);
  const qname = keyToWire(soa.key);
  const question = new Uint8Array(qname.length + 4);
  question.set(qname);
  question[qname.length + 1] = 6;
  question[qname.length + 3] = 1;
  const w = new XfrMessageWriter({ id, queryFlags: 0, question, maxSize: 512 });
  w.add({ key: soa.key, type: 6, ttl: soa.ttl, block: soa.rdata, start: 0, len: soa.rdata.length });
  const m = w.take();
  // A request (QR 0) with opcode NOTIFY and AA (RFC 1996 section 3.7).
  m[2] = (OPCODE_NOTIFY << 3) | 0x04;
  return m;
}

/** Send one NOTIFY to one peer with retries; resolves with the peer's rcode name, or undefined after the last try. */
export async function notifyPeer(
  zone: Zone,
  peer: ListenAddress,
  options: NotifyOptions,
  signal?: AbortSignal,
  sign?: (msg: Uint8Array) => Uint8Array,
): Promise<string | undefined> {
  const id = randomInt(0, 65536);
  const raw = notifyMessage(zone, id);
  const msg = sign ? sign(raw) : raw;
  const socket = dgram.createSocket(peer.host.includes(':') ? 'udp6' : 'udp4');
  socket.on('error', () => undefined);
  try {
    return await new Promise<string | undefined>((resolve) => {
      let tries = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (v: string | undefined) => {
        clearTimeout(timer);
        resolve(v);
      };
      socket.on('message', (m) => {
        if (m.length < 12 || m.readUInt16BE(0) !== id || (m[2]! & 0x80) === 0) return;
        if (((m[2]! >> 3) & 0xf) !== OPCODE_NOTIFY) return;
        const rcode = m[3]! & 0xf;
        finish(RCODES[rcode] ?? `RCODE${rcode}`);
      });
      const send = () => {
        if (signal?.aborted || tries >= options.tries) return finish(undefined);
        tries++;
        socket.send(msg, peer.port, peer.host);
        timer = setTimeout(send, options.timeoutMs * 2 ** (tries - 1));
        timer.unref?.();
      };
      signal?.addEventListener('abort', () => finish(undefined), { once: true });
      send();
    });
  } finally {
    socket.close();
  }
}

/** NOTIFY every peer of a zone; logs each answer. */
export async function notifyAll(
  zone: Zone,
  serial: number | undefined,
  peers: readonly ListenAddress[],
  options: NotifyOptions,
  log: Logger,
  signal?: AbortSignal,
  sign?: (msg: Uint8Array) => Uint8Array,
): Promise<void> {
  await Promise.all(
    peers.map(async (peer) => {
      const to = `${peer.host.includes(':') ? `[${peer.host}]` : peer.host}:${peer.port}`;
      const answer = await notifyPeer(zone, peer, options, signal, sign);
      if (answer === undefined) {
        if (!signal?.aborted) {
          log.warn('notify_failed', { zone: zone.origin, serial, peer: to, tries: options.tries });
        }
      } else log.info('notify_sent', { zone: zone.origin, serial, peer: to, answer });
    }),
  );
}
