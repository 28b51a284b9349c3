/**
 * TSIG on the server side: node:crypto's HMAC, and the answers to requests
 * whose TSIG fails (RFC 8945 section 5.2: BADKEY, BADSIG unsigned; BADTIME
 * signed, with our time).
 */
import { createHmac } from 'node:crypto';
import { appendTsig, TSIG_BADTIME, TsigSigner, type Hmac, type TsigFailure } from './core/tsig.ts';
import { rcodeOf } from '../authority/rcodes.ts';

const HASH: Record<string, string> = {
  'hmac-md5': 'md5',
  'hmac-sha1': 'sha1',
  'hmac-sha224': 'sha224',
  'hmac-sha256': 'sha256',
  'hmac-sha384': 'sha384',
  'hmac-sha512': 'sha512',
};

export const nodeHmac: Hmac = (algorithm, secret, data) =>
  new Uint8Array(createHmac(HASH[algorithm]!, secret).update(data).digest());

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The answer to a request whose TSIG is malformed or not last (RFC 8945 5.1, 5.2): FORMERR, unsigned. */
export function malformedTsigResponse(msg: Uint8Array, questionEnd: number): Uint8Array {
  return answerHead(msg, questionEnd, rcodeOf('TSIG_MALFORMED'));
}

/** Header and question of the request as an answer: QR with `flags` (default: opcode and RD), `rcode`. */
export function answerHead(
  msg: Uint8Array,
  questionEnd: number,
  rcode: number,
  flags = msg[2]! & 0x79,
): Uint8Array {
  const head = new Uint8Array(msg.subarray(0, questionEnd));
  head[2] = 0x80 | flags;
  head[3] = rcode;
  head.fill(0, 4, 12);
  head[5] = questionEnd > 12 ? 1 : 0;
  return head;
}

/** The answer to a request whose TSIG failed: NOTAUTH and a TSIG record with the TSIG error. */
export function tsigErrorResponse(
  msg: Uint8Array,
  questionEnd: number,
  check: TsigFailure,
): Uint8Array {
  const head = answerHead(msg, questionEnd, rcodeOf(check.code));
  const t = check.tsig;
  if (check.tsigError === TSIG_BADTIME && check.key) {
    // RFC 8945 section 5.2.3: signed, with our time in Other Data.
    const now = nowSeconds();
    const other = new Uint8Array(6);
    const v = new DataView(other.buffer);
    v.setUint16(0, Math.floor(now / 2 ** 32) & 0xff);
    v.setUint32(2, now >>> 0);
    const signer = new TsigSigner(check.key, nodeHmac, t.timeSigned, t.mac, {
      fudge: t.fudge,
      error: TSIG_BADTIME,
      other,
    });
    return signer.sign(head);
  }
  return appendTsig(
    head,
    { ...t, error: check.tsigError, other: new Uint8Array(0) },
    new Uint8Array(0),
  );
}
