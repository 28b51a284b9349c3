/**
 * Checking the TSIG of an answer to a request we signed (RFC 8945 section
 * 5.3.1 seen from the requester): the answer must be signed with the same
 * key, over the request's MAC, the answer and the full variables, and its
 * time must be within the fudge. The peer may also report an error in the
 * TSIG it sends (BADKEY, BADSIG, BADTIME), which fails the check too.
 *
 * @see RFC 8945 section 5.3.2 (as the requester applies it): "If the TSIG
 * RR is absent [...] or if the MAC is not valid [...] the client MUST
 * discard the response".
 */
import {
  algorithmKeyOf,
  macLengthAllowed,
  nameWireKey,
  readTsig,
  receivedInput,
  sameMac,
  stripTsig,
  TSIG_BADKEY,
  TSIG_BADSIG,
  TSIG_BADTIME,
  type Hmac,
  type TsigKey,
} from './tsig.ts';

export type ResponseCheck =
  { readonly ok: true } | { readonly ok: false; readonly problem: string };

const TSIG_ERRORS: Record<number, string> = {
  [TSIG_BADSIG]: 'BADSIG',
  [TSIG_BADKEY]: 'BADKEY',
  [TSIG_BADTIME]: 'BADTIME',
};

/** Whether `msg`, the answer to a request signed with `key` whose MAC was `requestMac`, is signed rightly. */
export function verifyResponse(
  msg: Uint8Array,
  key: TsigKey,
  requestMac: Uint8Array,
  hmac: Hmac,
  now: number,
): ResponseCheck {
  const t = readTsig(msg);
  if (t === undefined) return { ok: false, problem: 'unsigned answer' };
  if (t === 'FORMERR') return { ok: false, problem: 'malformed TSIG record' };
  if (t.keyKey !== nameWireKey(key.name) || t.algorithmKey !== algorithmKeyOf(key))
    return { ok: false, problem: 'signed with another key' };
  if (t.error !== 0)
    return {
      ok: false,
      problem: `the peer reports ${TSIG_ERRORS[t.error] ?? `TSIG error ${t.error}`} on our request`,
    };
  const full = hmac(key.algorithm, key.secret, receivedInput(stripTsig(msg, t), t, requestMac));
  if (!macLengthAllowed(t.mac.length, full.length)) return { ok: false, problem: 'MAC too short' };
  if (!sameMac(full.subarray(0, t.mac.length), t.mac)) return { ok: false, problem: 'wrong MAC' };
  if (Math.abs(now - t.timeSigned) > t.fudge)
    return { ok: false, problem: 'signed outside the time fudge' };
  return { ok: true };
}
