/**
 * Interoperability: BIND's `dig` and Knot's `kdig` against the server over
 * UDP and TCP (`+tcp`), parsed from their own output.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../helpers/tools.ts';
import { SAMPLE_ZONES, startTestServer, type Harness } from './harness.ts';

const run = promisify(execFile);
let h: Harness;
beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES]);
});
afterAll(async () => h?.close());

const tools = [
  ['dig', toolOrSkip('dig')],
  ['kdig', toolOrSkip('kdig')],
] as const;

describe.each(tools)('%s', (name, tool) => {
  describe.skipIf(tool.skipReason !== undefined).each(['+notcp', '+tcp'])('%s', (transport) => {
    it('NAPTR with SRV/A additionals', async () => {
      const { stdout } = await run(
        tool.path!,
        [
          '@127.0.0.1',
          '-p',
          String(h.port),
          transport,
          '+norec',
          '+bufsize=1232',
          'lex.sao-paulo.gov.br',
          'NAPTR',
        ],
        { timeout: 5000 },
      );
      expect(stdout).toMatch(/status: NOERROR/i);
      expect(stdout).toMatch(/flags: qr aa;/i);
      expect(stdout).toContain('"thttp+N2L+N2Ls" "" _http._tcp.resolver.lex.sao-paulo.gov.br.');
      expect(stdout).toMatch(/res1\.lex\.sao-paulo\.gov\.br\.\s+3600\s+IN\s+A\s+192\.0\.2\.10/);
      expect(stdout).toMatch(
        /_http\._tcp\.resolver\.lex\.sao-paulo\.gov\.br\.\s+3600\s+IN\s+SRV\s+10 60 8080/,
      );
    });
    it('the LEX entry of urn.arpa (RFC 9676 section 12)', async () => {
      const { stdout } = await run(
        tool.path!,
        ['@127.0.0.1', '-p', String(h.port), transport, '+short', 'lex.urn.arpa', 'NAPTR'],
        {
          timeout: 5000,
        },
      );
      expect(stdout.trim()).toBe('100 10 "" "" "" lex-nameserver.nic.it.');
    });
    it('NXDOMAIN with SOA, and REFUSED outside the zones', async () => {
      const nx = await run(
        tool.path!,
        ['@127.0.0.1', '-p', String(h.port), transport, 'fr.lex-routing.nic.it', 'NAPTR'],
        { timeout: 5000 },
      );
      expect(nx.stdout).toMatch(/status: NXDOMAIN/i);
      expect(nx.stdout).toMatch(/nic\.it\.\s+300\s+IN\s+SOA/);
      const refused = await run(
        tool.path!,
        ['@127.0.0.1', '-p', String(h.port), transport, 'example.com', 'A'],
        { timeout: 5000 },
      );
      expect(refused.stdout).toMatch(/status: REFUSED/i);
    });
  });
});
