/**
 * The deprecation path from dns-packet's record shapes (issue 19): a user's
 * DnsResolver answering in them still works, converted, with one warning;
 * toDnsPacketAnswer and fromDnsPacketAnswer are inverses on what the
 * decoder yields.
 */
import * as dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { fromDnsPacketAnswer, recordResolver, toDnsPacketAnswer } from '../../src/client/compat.ts';
import type { DnsPacketLookupResult } from '../../src/client/stub.ts';
import { decodeResponse } from '../../src/client/wire.ts';

const packetResult: DnsPacketLookupResult = {
  kind: 'answer',
  qname: 'lex.urn.arpa.',
  qtype: 'NAPTR',
  name: 'lex.urn.arpa.',
  records: [
    {
      name: 'lex.urn.arpa',
      type: 'NAPTR',
      ttl: 60,
      class: 'IN',
      data: {
        order: 100,
        preference: 10,
        flags: '',
        services: '',
        regexp: '',
        replacement: 'lex-nameserver.nic.it',
      },
    },
  ],
  cnames: [],
  ttl: 60,
  server: 'memory',
  protocol: 'udp',
  rttMs: 0,
  ignored: 0,
  additionals: [],
};

describe("dns-packet's shapes, deprecated", () => {
  it("a user's resolver in dns-packet shapes: records converted, one DeprecationWarning", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const r = recordResolver({ lookup: () => Promise.resolve(packetResult) });
      const a = await r.lookup('lex.urn.arpa.', 'NAPTR');
      const b = await r.lookup('lex.urn.arpa.', 'NAPTR');
      expect(a.records).toEqual([
        {
          name: 'lex.urn.arpa',
          code: 35,
          class: 1,
          ttl: 60,
          type: 'NAPTR',
          order: 100,
          preference: 10,
          flags: '',
          services: '',
          regexp: '',
          replacement: 'lex-nameserver.nic.it.',
        },
      ]);
      expect(b.records).toEqual(a.records);
      await new Promise((r) => setImmediate(r));
      const ours = warnings.filter(
        (w) => (w as Error & { code?: string }).code === 'LEXROUTE_DNS_PACKET_SHAPES',
      );
      expect(ours.map((w) => w.name)).toEqual(['DeprecationWarning']);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('toDnsPacketAnswer and fromDnsPacketAnswer are inverses on decoded records', () => {
    const buf = Buffer.from(
      dnsPacket.encode({
        type: 'response',
        id: 1,
        answers: [
          {
            name: 'a.example',
            type: 'NAPTR',
            ttl: 5,
            data: {
              order: 1,
              preference: 2,
              flags: 'u',
              services: 'x',
              regexp: '!a!b!',
              replacement: '.',
            },
          },
          {
            name: 'a.example',
            type: 'SRV',
            ttl: 5,
            data: { priority: 1, weight: 2, port: 3, target: 't.example' },
          },
          { name: 'a.example', type: 'A', ttl: 5, data: '192.0.2.1' },
          { name: 'a.example', type: 'TXT', ttl: 5, data: ['x y'] },
          {
            name: 'a.example',
            type: 'DS',
            ttl: 5,
            data: { keyTag: 1, algorithm: 13, digestType: 2, digest: Buffer.alloc(32, 7) },
          },
        ],
      }),
    );
    const records = decodeResponse(buf, 10).answers;
    expect(records.map((r) => r.type)).toEqual(['NAPTR', 'SRV', 'A', 'TXT', 'unknown']);
    expect(records.map((r) => fromDnsPacketAnswer(toDnsPacketAnswer(r)))).toEqual(records);
    expect(records.map(toDnsPacketAnswer)).toStrictEqual(dnsPacket.decode(buf).answers);
  });
});
