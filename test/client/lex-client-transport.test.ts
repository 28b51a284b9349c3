/**
 * One LexClient, its transport passed in (issue 29): UDP stub, DoH on undici
 * and DoH through fetch (the page's transport) give the same URLs and the
 * same lookups for the same URN against one lexroute server; without a
 * transport the options choose it as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dohTransport,
  LexClient,
  nodeDohTransport,
  udpTransport,
  type ClientTransport,
} from '../../src/client/index.ts';
import { CATALOGUE, startDohChain, type DohChain } from './helpers/chain.ts';

const FEDERAL = 'urn:lex:br:federal:lei:2002-01-10;10406';

let served: DohChain;
let dns: string;
let doh: string;

beforeAll(async () => {
  served = await startDohChain();
  ({ dns, doh } = served);
});

afterAll(async () => {
  await served?.close();
});

async function resolveWith(transport: ClientTransport) {
  const client = new LexClient({ transport });
  try {
    const r = await client.resolve(FEDERAL);
    return { client, r };
  } finally {
    await client.close();
  }
}

/** The DNS steps of a trace: kind, name and outcome (the server named differs by transport). */
function lookups(r: { trace: { steps: readonly object[] } }): string[] {
  return r.trace.steps
    .map((s) => s as { kind: string; name?: string; key?: string; result?: string })
    .filter((s) => s.kind === 'naptr' || s.kind === 'srv' || s.kind === 'address')
    .map((s) => `${s.kind} ${s.name ?? s.key ?? ''} ${s.result ?? ''}`);
}

describe('LexClient({ transport })', () => {
  it('UDP, DoH on undici and DoH through fetch resolve alike', async () => {
    const udp = await resolveWith(udpTransport({ servers: [dns] }));
    const undiciDoh = await resolveWith(nodeDohTransport({ doh }));
    const fetchDoh = await resolveWith(dohTransport({ doh, fetch: globalThis.fetch }));
    expect(udp.r.kind).toBe('resolved');
    if (udp.r.kind !== 'resolved') return;
    expect(udp.r.urls).toEqual([CATALOGUE[0]?.url]);
    expect(lookups(udp.r).length).toBeGreaterThan(1);
    for (const other of [undiciDoh, fetchDoh]) {
      expect(other.r.kind).toBe('resolved');
      if (other.r.kind !== 'resolved') continue;
      expect(other.r.urls).toEqual(udp.r.urls);
      expect(lookups(other.r)).toEqual(lookups(udp.r));
    }
    expect(udp.client.servers).toEqual([dns]);
    expect(fetchDoh.client.servers).toEqual([doh]);
    expect(udp.client.mode).toBe('stub');
  });

  it('without a transport, servers and doh choose it (one class either way)', async () => {
    const a = new LexClient({ servers: [dns] });
    const b = new LexClient({ doh });
    try {
      const [ra, rb] = await Promise.all([a.resolve(FEDERAL), b.resolve(FEDERAL)]);
      expect(ra.kind === 'resolved' && ra.urls).toEqual([CATALOGUE[0]?.url]);
      expect(rb.kind === 'resolved' && rb.urls).toEqual([CATALOGUE[0]?.url]);
      expect(a.servers).toEqual([dns]);
      expect(b.servers).toEqual([doh]);
      expect(a.constructor).toBe(b.constructor);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
