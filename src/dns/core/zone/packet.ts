/** Structured views of RDATA through dns-packet's per-type codecs, for library users. */
import packet from 'dns-packet';
import { typeName } from '../rr/types.ts';

type Codec = {
  encode(data: unknown, buf?: Uint8Array, offset?: number): Uint8Array;
  decode(buf: Uint8Array, offset?: number): unknown;
};

function codec(type: number): Codec {
  const rec = (packet as unknown as { record(t: string): Codec }).record;
  return rec(typeName(type));
}

/**
 * Uncompressed RDATA of `type` in dns-packet's structured form (raw bytes for
 * types it does not know). Throws a RangeError with code ZONE_BAD_RDATA.
 */
export function decodeRdata(type: number, rdata: Uint8Array): unknown {
  const buf = Buffer.alloc(rdata.length + 2);
  buf.writeUInt16BE(rdata.length, 0);
  buf.set(rdata, 2);
  try {
    return codec(type).decode(buf, 0);
  } catch (e) {
    const error = new RangeError(
      `cannot decode ${typeName(type)} RDATA: ${e instanceof Error ? e.message : String(e)}`,
    );
    (error as RangeError & { code: string }).code = 'ZONE_BAD_RDATA';
    throw error;
  }
}

/** Encode dns-packet's structured form of `type` into uncompressed wire RDATA. */
export function encodeRdata(type: number, data: unknown): Uint8Array {
  const out = codec(type).encode(data);
  return new Uint8Array(out.subarray(2));
}
