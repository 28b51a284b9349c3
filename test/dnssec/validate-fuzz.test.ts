/**
 * The validator fuzzed with mutated signed answers (bounded runs, fixed
 * seeds): real responses from lexroute's server for the chain of
 * validate-chain.ts (NSEC, NSEC3, a wildcard, a negative answer) and the
 * DNSKEY and DS responses of their chain of trust are recorded once; each
 * run flips bytes in one of them and validates again with a fresh
 * validator. It never throws, and it never says `secure` unless the RRset
 * the response carries for the question is the one that was signed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../helpers/tools.ts';
import { startTestServer, type Harness } from '../server/harness.ts';
import { buildValidateChain } from './validate-chain.ts';
import { DnsTransport } from '../../src/client/transport.ts';
import { StubResolver } from '../../src/client/stub.ts';
import { parseTrustAnchors } from '../../src/dnssec/core/validate/anchors.ts';
import { Validator, type TrustAnchor } from '../../src/dnssec/core/validate/validator.ts';
import { readResponse } from '../../src/dnssec/core/validate/message.ts';
import { nameKey } from '../../src/dns/core/wire/name.ts';
import { nodeDnssecCrypto } from '../../src/dnssec/node-crypto.ts';
import { TYPE_CODES, type QueryType } from '../../src/dns/core/rr/types.ts';

const signer = toolOrSkip('dnssec-signzone');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-validate-fuzz-'));
const crypto = nodeDnssecCrypto();
const NOW = Math.floor(Date.now() / 1000);

const QUESTIONS: readonly [string, QueryType][] = [
  ['naptr.v.test.', 'NAPTR'],
  ['x.wild.v.test.', 'NAPTR'],
  ['naptr.sec.v.test.', 'NAPTR'],
  ['nope.v.test.', 'NAPTR'],
];

/** Recorded responses: the question's own, and every DS/DNSKEY fetch of its chain. */
const recorded = new Map<string, Uint8Array[]>();
let anchors: TrustAnchor[] = [];
let h: Harness | undefined;

function validator(fetched: Map<string, Uint8Array[]>): Validator {
  return new Validator({
    crypto,
    anchors,
    now: () => NOW,
    fetch: (name, type) => {
      const w = fetched.get(`${nameKey(name)} ${type}`);
      return w ? Promise.resolve(w) : Promise.reject(new Error(`not recorded: ${name} ${type}`));
    },
  });
}

/** The RRset of (qname, qtype) in a response, as sorted hex RDATA ('' when none or undecodable). */
function rrset(wire: Uint8Array, qname: string, qtype: number): string {
  const r = readResponse(wire);
  if (!r) return 'undecodable';
  const key = nameKey(qname);
  return r.answer
    .filter((x) => x.key === key && x.type === qtype)
    .map((x) => Buffer.from(x.rdata).toString('hex'))
    .sort()
    .join(',');
}

beforeAll(async () => {
  if (signer.skipReason) return;
  const chain = await buildValidateChain(tmp);
  h = await startTestServer([...chain.files]);
  const parsed = parseTrustAnchors(readFileSync(chain.anchorFile, 'utf8'), 'anchor', NOW);
  if ('anchors' in parsed) anchors = parsed.anchors;
  const transport = new DnsTransport({ dnssecOk: true });
  const stub = new StubResolver(transport, {
    servers: [{ host: '127.0.0.1', port: h.port }],
    keepWire: true,
  });
  const live = new Validator({
    crypto,
    anchors,
    now: () => NOW,
    fetch: async (name, type) => {
      const wires = (await stub.lookup(name, type)).wires ?? [];
      recorded.set(`${nameKey(name)} ${type}`, [...wires]);
      return wires;
    },
  });
  for (const [q, t] of QUESTIONS) {
    const wires = (await stub.lookup(q, t)).wires ?? [];
    recorded.set(`${nameKey(q)} ${t}`, [...wires]);
    expect((await live.validate(q, TYPE_CODES.get(t)!, wires)).status).toBe('secure');
  }
  transport.close();
}, 120_000);
afterAll(async () => {
  await h?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(signer.skipReason !== undefined)('validator fuzz', () => {
  it.each(QUESTIONS)(
    '%s %s: mutated responses never crash and never pass a changed RRset as secure',
    async (qname, qtype) => {
      const code = TYPE_CODES.get(qtype)!;
      const own = `${nameKey(qname)} ${qtype}`;
      const keys = [...recorded.keys()];
      const original = rrset(recorded.get(own)![0]!, qname, code);
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: keys.length * 3 }),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), {
            minLength: 1,
            maxLength: 4,
          }),
          async (which, flips) => {
            // The question's own response is mutated most often; otherwise a DS/DNSKEY one.
            const target = which < keys.length * 2 ? own : keys[which % keys.length]!;
            const fetched = new Map([...recorded].map(([k, v]) => [k, [...v]]));
            const wire = Uint8Array.from(fetched.get(target)![0]!);
            for (const [at, x] of flips) wire[12 + (at % (wire.length - 12))]! ^= x;
            fetched.set(target, [wire]);
            const answer = fetched.get(own)![0]!;
            const v = await validator(fetched).validate(qname, code, [answer]);
            if (v.status === 'secure') expect(rrset(answer, qname, code)).toBe(original);
            else refused++;
          },
        ),
        { numRuns: 250, seed: 32 },
      );
      // Some mutations touch nothing signed (a TTL, the question): still secure; most are caught.
      expect(refused).toBeGreaterThan(100);
    },
    120_000,
  );
});
