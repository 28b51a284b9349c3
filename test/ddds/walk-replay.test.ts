/**
 * Every DDDS case of the end-to-end tests, replayed against the pure walk
 * without sockets: the DNS answers and HTTP results the client got over real
 * sockets (recorded by test/vectors/ddds/record-e2e.ts with the client as it
 * was before the walk was split out of it) are fed to `DddsWalk`, which must
 * ask for exactly the recorded lookups, in order, and end with the same
 * result, trace and code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DddsWalk, type HttpFeed, type WalkNeed } from '../../src/ddds/core/walk.ts';
import type { ResolveResult, Service, Trace } from '../../src/ddds/core/trace.ts';
import type { ResolutionCode } from '../../src/ddds/core/codes.ts';
import { addressFeed, naptrFeed, srvFeed } from '../../src/client/drive.ts';
// Recorded before the record model: dns-packet's shapes, converted as a user's resolver's are.
import {
  toRecordModel,
  type DnsPacketLookupResult as LookupResult,
} from '../helpers/dns-packet-shapes.ts';

interface Recorded {
  readonly id: string;
  readonly urn: string;
  readonly options: { service?: Service; noHttp?: boolean };
  readonly lookups: readonly ({ name: string; type: string } & (
    { result: LookupResult } | { error: { code: ResolutionCode; message: string; server: string } }
  ))[];
  readonly http: readonly HttpFeed[];
  readonly expect:
    | { ok: true; result: ResolveResult }
    | { ok: false; code: string; message: string; trace: Trace };
}

const file = JSON.parse(
  readFileSync(new URL('../vectors/ddds/e2e-recorded.json', import.meta.url), 'utf8'),
) as { cases: Recorded[] };

function traceOf(c: Recorded): Trace {
  return c.expect.ok ? c.expect.result.trace : c.expect.trace;
}

/** Feed the recorded answers; each need must be the next recorded lookup or HTTP exchange. */
function replay(c: Recorded): Extract<WalkNeed, { kind: 'done' | 'failed' }> {
  const trace = traceOf(c);
  const walk = new DddsWalk(c.urn, {
    ...c.options,
    mode: trace.mode,
    servers: trace.servers,
    random: () => 0,
  });
  let lookup = 0;
  let http = 0;
  for (let need = walk.begin(); ;) {
    if (need.kind === 'done' || need.kind === 'failed') {
      expect(lookup, 'every recorded lookup was asked for').toBe(c.lookups.length);
      expect(http, 'every recorded HTTP exchange was asked for').toBe(c.http.length);
      return need;
    }
    if (need.kind === 'http') {
      expect(need.url).toBe(traceOf(c).steps.filter((s) => s.kind === 'http')[http]?.url);
      need = walk.http(c.http[http++] as HttpFeed);
      continue;
    }
    const rec = c.lookups[lookup++];
    const name = need.kind === 'naptr' ? need.key : need.name;
    const type = need.kind === 'naptr' ? 'NAPTR' : need.kind === 'srv' ? 'SRV' : need.qtype;
    expect({ name, type }).toEqual({ name: rec?.name, type: rec?.type });
    if (rec === undefined) throw new Error('asked for more than was recorded');
    if ('error' in rec) {
      const feed = { kind: 'error', ...rec.error } as const;
      if (need.kind === 'naptr') need = walk.naptr(feed);
      else if (need.kind === 'srv') need = walk.srv(feed);
      else need = walk.address(feed);
      continue;
    }
    if (need.kind === 'naptr')
      need = walk.naptr(naptrFeed(toRecordModel(rec.result), false, { cache: undefined }));
    else if (need.kind === 'srv') need = walk.srv(srvFeed(toRecordModel(rec.result), false));
    else need = walk.address(addressFeed(toRecordModel(rec.result), false));
  }
}

/** As the client returns it: JSON, like the recording. */
const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

describe('the end-to-end DDDS cases, replayed against the walk (no sockets)', () => {
  it('the recording covers resolutions, each failure code and the S/A, N2Ls, N2C paths', () => {
    const codes = file.cases.flatMap((c) => (c.expect.ok ? [] : [c.expect.code]));
    expect(codes).toEqual(
      expect.arrayContaining([
        'DNS_NXDOMAIN',
        'DDDS_NO_VALID_OUTPUT',
        'HTTP_NOT_FOUND',
        'DNS_LAME',
        'DDDS_LOOP',
      ]),
    );
    const kinds = new Set(file.cases.flatMap((c) => traceOf(c).steps.map((s) => s.kind)));
    expect([...kinds].sort()).toEqual(['address', 'http', 'naptr', 'partition', 'srv']);
    expect(file.cases.length).toBeGreaterThan(20);
  });

  for (const c of file.cases) {
    it(c.id, () => {
      const end = replay(c);
      if (c.expect.ok) {
        expect(end.kind).toBe('done');
        if (end.kind === 'done') expect(plain(end.result)).toEqual(c.expect.result);
      } else {
        expect(end.kind).toBe('failed');
        if (end.kind !== 'failed') return;
        expect({ code: end.code, message: end.message }).toEqual({
          code: c.expect.code,
          message: c.expect.message,
        });
        expect(plain(end.trace)).toEqual(c.expect.trace);
      }
    });
  }
});
