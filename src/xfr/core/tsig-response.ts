/**
 * Checking the TSIG of an answer to a request we signed (RFC 8945 section
 * 5.3.2, as the requester applies it): signed with the same key, over the
 * request's MAC, within the fudge, and no TSIG error from the peer.
 */
import { fail, ok, type Failure, type Result } from '../../kit/core/result.ts';
import type { TsigResponseCode } from './codes.ts';
import {
  algorithmKeyOf,
  macLengthAllowed,
  nameWireKey,
  readTsig,
  sameMac,
  signingInput,
  stripTsig,
  TSIG_ERROR_NAMES,
  type Hmac,
  type TsigKey,
} from './tsig.ts';

/** Whether the answer is signed rightly; the failure's message is the sentence the log gives. */
export type ResponseCheck = Result<undefined, Failure<TsigResponseCode>>;

/** Whether `msg`, the answer to a request signed with `key` whose MAC was `requestMac`, is signed rightly. */
export function verifyResponse(
  msg: Uint8Array,
  key: TsigKey,
  requestMac: Uint8Array,
  hmac: Hmac,
  now: number,
): ResponseCheck {
  const t = readTsig(msg);
  if (t === undefined) return fail('TSIG_UNSIGNED', 'unsigned answer');
  if (t === 'FORMERR') return fail('TSIG_MALFORMED', 'malformed TSIG record');
  if (t.keyKey !== nameWireKey(key.name) || t.algorithmKey !== algorithmKeyOf(key))
    return fail('TSIG_BAD_KEY', 'signed with another key');
  if (t.error !== 0)
    return fail(
      'TSIG_PEER_ERROR',
      `the peer reports ${TSIG_ERROR_NAMES[t.error] ?? `TSIG error ${t.error}`} on our request`,
    );
  const full = hmac(key.algorithm, key.secret, signingInput(stripTsig(msg, t), t, requestMac));
  if (!macLengthAllowed(t.mac.length, full.length)) return fail('TSIG_BAD_TRUNC', 'MAC too short');
  if (!sameMac(full.subarray(0, t.mac.length), t.mac)) return fail('TSIG_BAD_SIG', 'wrong MAC');
  if (Math.abs(now - t.timeSigned) > t.fudge)
    return fail('TSIG_BAD_TIME', 'signed outside the time fudge');
  return ok(undefined);
}
