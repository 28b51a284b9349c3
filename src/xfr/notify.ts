/**
 * NOTIFY out (RFC 1996): after a serial went up, tell each secondary over
 * UDP, retrying with a doubling timeout (section 3.6). A signed NOTIFY's
 * answer unsigned or wrongly signed is logged and counts as no answer.
 */
import dgram from 'node:dgram';
import { randomInt } from 'node:crypto';
import type { Zone } from '../dns/core/zone/model.ts';
import { soaRecord } from './core/records.ts';
import { XfrMessageWriter } from './core/message.ts';
import { keyToWire } from '../dns/core/wire/name.ts';
import type { ListenAddress } from '../config/server.ts';
import type { Logger } from '../authority/log.ts';
import { readTsig, TsigSigner, type TsigKey } from './core/tsig.ts';
import { verifyResponse } from './core/tsig-response.ts';
import type { TsigResponseCode } from './core/codes.ts';
import type { Failure } from '../kit/core/result.ts';
import { nodeHmac, nowSeconds } from './tsig.ts';
import { peerText } from './exchange.ts';
import { RCODE_NAMES } from '../authority/rcodes.ts';

/** A NOTIFY target, the TSIG key its NOTIFYs are signed with, and the address they go out from. */
export interface NotifyTarget extends ListenAddress {
  readonly key?: TsigKey;
  /** Source address (`notifySource`, or the served address); absent: the kernel's choice. */
  readonly source?: string;
}

/** What one peer made of a NOTIFY: its rcode name, or nothing; and what was wrong with the last answer's TSIG. */
export interface NotifyOutcome {
  readonly answer: string | undefined;
  /** The last TSIG failure's sentence, and its code. */
  readonly tsigProblem?: string;
  readonly tsigCode?: TsigResponseCode;
  /** Why nothing could be sent (the source address cannot be bound). */
  readonly error?: string;
}

/** A failed check of an answer's TSIG (`verifyResponse`). */
type TsigProblem = Failure<TsigResponseCode>;
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
  const question = Uint8Array.from([...keyToWire(soa.key), 0, 6, 0, 1]);
  const w = new XfrMessageWriter({ id, queryFlags: 0, question, maxSize: 512 });
  w.add({ key: soa.key, type: 6, ttl: soa.ttl, block: soa.rdata, start: 0, len: soa.rdata.length });
  const m = w.take();
  // A request (QR 0) with opcode NOTIFY and AA (RFC 1996 section 3.7).
  m[2] = (OPCODE_NOTIFY << 3) | 0x04;
  return m;
}

/** Send one NOTIFY to one peer with retries; the peer's rcode name, or undefined after the last try. */
export async function notifyPeer(
  zone: Zone,
  peer: NotifyTarget,
  options: NotifyOptions,
  signal?: AbortSignal,
  onBadTsig?: (problem: TsigProblem) => void,
): Promise<NotifyOutcome> {
  const id = randomInt(0, 65536);
  const raw = notifyMessage(zone, id);
  const key = peer.key;
  const msg = key ? new TsigSigner(key, nodeHmac, nowSeconds(), undefined).sign(raw) : raw;
  const signed = key ? readTsig(msg) : undefined;
  const requestMac = signed && signed !== 'FORMERR' ? signed.mac : new Uint8Array(0);
  const socket = dgram.createSocket(peer.host.includes(':') ? 'udp6' : 'udp4');
  let tsigProblem: TsigProblem | undefined;
  try {
    // From the configured or served address (a secondary's allow-notify names it), any port.
    const bound = await new Promise<string | undefined>((resolve) => {
      socket.once('error', (e) => resolve(`cannot send from ${peer.source}: ${e.message}`));
      socket.bind(0, peer.source, () => resolve(undefined));
    });
    if (bound !== undefined) return { answer: undefined, error: bound };
    socket.on('error', () => undefined);
    const answer = await new Promise<string | undefined>((resolve) => {
      let tries = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (v: string | undefined) => {
        clearTimeout(timer);
        resolve(v);
      };
      socket.on('message', (m) => {
        if (m.length < 12 || m.readUInt16BE(0) !== id || (m[2]! & 0x80) === 0) return;
        if (((m[2]! >> 3) & 0xf) !== OPCODE_NOTIFY) return;
        if (key) {
          const check = verifyResponse(m, key, requestMac, nodeHmac, nowSeconds());
          // Not the answer of a peer that holds the key: wait for the next try's.
          if (!check.ok) {
            tsigProblem = check.error;
            onBadTsig?.(check.error);
            return;
          }
          tsigProblem = undefined;
        }
        const rcode = m[3]! & 0xf;
        finish(RCODE_NAMES[rcode] ?? `RCODE${rcode}`);
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
    const tsig = tsigProblem && { tsigProblem: tsigProblem.message, tsigCode: tsigProblem.code };
    return { answer, ...tsig };
  } finally {
    socket.close();
  }
}

/** NOTIFY every peer: `notify_sent`, or at warn `notify_rejected`, `notify_failed`, `notify_reply_tsig`. */
export async function notifyAll(
  zone: Zone,
  serial: number | undefined,
  peers: readonly NotifyTarget[],
  options: NotifyOptions,
  log: Logger,
  signal?: AbortSignal,
): Promise<void> {
  await Promise.all(
    peers.map(async (peer) => {
      const base = {
        zone: zone.origin,
        serial,
        peer: peerText(peer),
        ...(peer.source ? { from: peer.source } : {}),
      };
      const onBadTsig = (p: TsigProblem) =>
        log.warn('notify_reply_tsig', { ...base, problem: p.message, code: p.code });
      const r = await notifyPeer(zone, peer, options, signal, onBadTsig);
      const key = peer.key ? { key: peer.key.name } : {};
      if (r.answer === 'NOERROR') log.info('notify_sent', { ...base, answer: r.answer, ...key });
      else if (r.answer !== undefined)
        log.warn('notify_rejected', { ...base, answer: r.answer, ...key });
      else if (!signal?.aborted) {
        const tsig =
          r.tsigProblem !== undefined ? { tsig: r.tsigProblem, tsigCode: r.tsigCode } : {};
        const error = r.error !== undefined ? { error: r.error } : {};
        log.warn('notify_failed', { ...base, tries: options.tries, ...key, ...tsig, ...error });
      }
    }),
  );
}
