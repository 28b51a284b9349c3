/**
 * A signing thread (`parallel-sign.ts`): holds the zone's private keys and
 * signs batches of RRSIG signing inputs with node:crypto.
 * workerData: `SignWorkerInit`; messages in: `SignBatch`; out: `SignedBatch`.
 */
import { createPrivateKey } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { signer } from './keys.ts';

export interface SignWorkerInit {
  /** Per key: its algorithm and its private key as PKCS #8 DER. */
  readonly keys: readonly { readonly algorithm: number; readonly pkcs8: Uint8Array }[];
}

/** Signing inputs one after the other: input i is `data[offsets[i]..offsets[i+1])`, signed by `keys[i]`. */
export interface SignBatch {
  readonly id: number;
  readonly keys: Uint8Array;
  readonly offsets: Uint32Array;
  readonly data: Uint8Array;
}

/** The signatures of a batch, in the same layout; or why it failed. */
export interface SignedBatch {
  readonly id: number;
  readonly offsets?: Uint32Array;
  readonly data?: Uint8Array;
  readonly error?: string;
}

const init = workerData as SignWorkerInit;
const sign = init.keys.map((k) =>
  signer(
    k.algorithm,
    createPrivateKey({ key: Buffer.from(k.pkcs8), format: 'der', type: 'pkcs8' }),
  ),
);

function signBatch(b: SignBatch): SignedBatch {
  const n = b.keys.length;
  const sigs: Uint8Array[] = [];
  let size = 0;
  for (let i = 0; i < n; i++) {
    const s = sign[b.keys[i]!]!(b.data.subarray(b.offsets[i]!, b.offsets[i + 1]!));
    sigs.push(s);
    size += s.length;
  }
  const offsets = new Uint32Array(n + 1);
  const data = new Uint8Array(size);
  let at = 0;
  for (let i = 0; i < n; i++) {
    offsets[i] = at;
    data.set(sigs[i]!, at);
    at += sigs[i]!.length;
  }
  offsets[n] = at;
  return { id: b.id, offsets, data };
}

parentPort!.on('message', (b: SignBatch) => {
  let reply: SignedBatch;
  try {
    reply = signBatch(b);
  } catch (e) {
    reply = { id: b.id, error: (e as Error).message };
  }
  const buffers = reply.data ? [reply.offsets!.buffer, reply.data.buffer] : [];
  parentPort!.postMessage(reply, buffers as ArrayBuffer[]);
});
