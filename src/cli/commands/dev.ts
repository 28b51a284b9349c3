/**
 * `lexroute dev` (what `npm start` runs): the sample chain of
 * `config/dev.json` on loopback addresses, until Ctrl-C; without one (an
 * installed package), the package's own sample deployment.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigFileError, readJsonConfig } from '../../config/load.ts';
import { validateDevConfig, type DevConfig } from '../../dev/config.ts';
import { DevStartError, startDevChain, type RunningDevChain } from '../../dev/chain.ts';
import { createLogger } from '../../authority/log.ts';
import { parseCommandArgs } from '../args.ts';
import { EXIT_OK, UsageError, stopSignal, type CliIo, type Command } from '../io.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';

export const DEV_HELP = `Usage: lexroute dev [options]

Start the sample LEX resolution chain on loopback addresses: the DNS servers
of the sample deployment (zones/, two instances on 127.0.0.1 and 127.0.0.2,
the second reached through NS delegations with glue) and the jurisdiction
resolvers the zones' terminal rules point at (catalogue built from
data/sample-catalogue.jsonl at each start). Prints what runs where and
commands to try, and a DNS over HTTPS endpoint (RFC 8484) over every zone of
the chain for stub clients and browsers. The resolvers serve at / a page
where a URN typed in a browser is resolved by the browser itself over that
DoH endpoint (address printed). Ctrl-C (SIGINT) or SIGTERM stops everything.

Options:
  --config FILE     deployment description (default: config/dev.json, or
                    the package's own sample when the folder has none)
  --dns-port N      run every DNS server on port N instead (0: a free port)
  --http-port N     run every resolver on port N instead (0: a free port);
                    the zones are served from a rewritten temporary copy
  --catalogue FILE  serve this SQLite catalogue instead of the sample rows
  --quiet           do not print the resolvers' requests
  --dnssec          sign every zone at start (fresh ECDSAP256SHA256 keys, one
                    per zone; each parent holds its children's DS) and write
                    the sample root's key, the trust anchor, beside the
                    catalogue (trust-anchor.key, trust-anchors.conf)
  -h, --help        show this help

On Linux every 127.x.y.z address is local; on macOS add the second one
first: sudo ifconfig lo0 alias 127.0.0.2 up
Exit codes: 0 stopped cleanly, 1 could not start (the address is named), 2 usage.
`;

/** The package's folder (config/, zones/ and data/ ship in it): three up from src/ or dist/cli/commands. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The deployment file and the folder its relative paths are read from. */
function devConfigLocation(
  given: string | undefined,
  cwd: string,
): { file: string; base: string; name: string } {
  if (given !== undefined) return { file: path.resolve(cwd, given), base: cwd, name: given };
  const local = path.resolve(cwd, 'config/dev.json');
  if (existsSync(local)) return { file: local, base: cwd, name: 'config/dev.json' };
  const file = path.join(PACKAGE_ROOT, 'config/dev.json');
  return { file, base: PACKAGE_ROOT, name: file };
}

function port(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw new UsageError(`--${name} must be a port number from 0 to 65535, not '${text}'`);
  }
  return Number(text);
}

/** A shell word: single quotes when it holds anything the shell would interpret. */
function sh(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The text printed once the chain is up. */
export function describeChain(
  chain: RunningDevChain,
  config: DevConfig,
  configFile: string,
): string {
  const lines: string[] = [];
  lines.push(`lexroute dev: the sample LEX chain is running (${configFile}). Ctrl-C stops it.`, '');
  lines.push('DNS servers (UDP and TCP):');
  for (const d of chain.dns) {
    lines.push(`  ${d.host}:${d.port}  ${d.name}: ${d.origins.join(' ')}`);
  }
  if (chain.dnssec) {
    lines.push(
      '',
      "DNSSEC: every zone signed at start (one ECDSAP256SHA256 key per zone, NSEC; parents hold their children's DS).",
      `  trust anchor (the sample root's key): ${chain.dnssec.anchorFile}`,
      `  for BIND/delv: ${chain.dnssec.bindAnchorFile}`,
      '  lexroute validates the chain itself from that anchor, secure end to end:',
      `  npx lexroute resolve --validate --trust-anchor ${sh(chain.dnssec.anchorFile)} --root ${chain.dns[0]!.host}:${chain.dns[0]!.port} --trace ${sh('urn:lex:br;sao.paulo;campinas:municipal:lei.complementar:2018-01-08;189')}`,
      `  or trust a validating resolver with that anchor in front (README: "A signed chain");`,
      `  Unbound's configuration for this chain (anchor and one stub-zone per zone): ${chain.dnssec.unboundConfFile}`,
      `  unbound -d -c ${sh(chain.dnssec.unboundConfFile)} &`,
      `  npx lexroute resolve --dnssec --server <resolver> --trace ${sh('urn:lex:it:stato:legge:2000-04-03;56')}`,
    );
  }
  lines.push('', 'Jurisdiction resolvers (THTTP, RFC 2169):');
  for (const r of chain.resolvers) lines.push(`  ${r.url}/  ${r.name}`);
  lines.push(
    `  catalogue: ${chain.catalogue.works} works, ${chain.catalogue.items} items (${chain.catalogue.path})`,
    '',
  );
  lines.push(
    `Resolve through the chain, from the root at ${chain.root} (iterative, following referrals):`,
  );
  const first = config.samples[0];
  for (const s of config.samples) {
    lines.push(`  # ${s.note}`);
    lines.push(
      `  npx lexroute resolve --root ${chain.root}${s.trace ? ' --trace' : ''} ${sh(s.urn)}`,
    );
  }
  if (first) {
    const r = chain.resolvers[0];
    lines.push('', 'Other ways in:');
    lines.push(`  npx lexroute resolve --root ${chain.root} --service N2Ls ${sh(first.urn)}`);
    lines.push(
      `  npx lexroute resolve --root ${chain.root} --trace ${sh('urn:lex:fr:etat:loi:2004-05-15;106')}   # not registered: DNS_NXDOMAIN`,
    );
    const [host, p] = chain.root.split(/:(?=\d+$)/);
    lines.push(`  dig @${host} -p ${p} +norec lex.urn.arpa NAPTR`);
    lines.push(
      `  dig @${host} -p ${p} +norec lex.sao-paulo.gov.br NAPTR   # a referral to 127.0.0.2`,
    );
    if (r) lines.push(`  curl -i ${sh(`${r.url}/uri-res/N2L?${first.urn}`)}`);
    lines.push(
      '',
      `DNS over HTTPS (RFC 8484), every zone of the chain behind one URL: ${chain.doh}`,
      `  in a browser, the resolution page (the client runs in the page, over DoH): ${r ? `${r.url}/` : ''}`,
      `  npx lexroute resolve --doh ${chain.doh} ${sh(first.urn)}`,
      `  dig +http-plain @${new URL(chain.doh).hostname} -p ${new URL(chain.doh).port} lex.urn.arpa NAPTR`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

export const devCommand: Command = {
  async run(argv, io: CliIo) {
    const parsed = parseCommandArgs(argv, io, DEV_HELP, {
      config: { type: 'string' },
      'dns-port': { type: 'string' },
      'http-port': { type: 'string' },
      catalogue: { type: 'string' },
      quiet: { type: 'boolean' },
      dnssec: { type: 'boolean' },
    });
    if (parsed === undefined) return EXIT_OK;
    const { values, positionals } = parsed;
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const dnsPort = port('dns-port', values['dns-port']);
    const httpPort = port('http-port', values['http-port']);

    const { file: configFile, base, name: configName } = devConfigLocation(values.config, io.cwd);
    let raw: unknown;
    try {
      raw = await readJsonConfig(configFile);
    } catch (e) {
      if (e instanceof ConfigFileError) {
        io.err(`lexroute dev: ${e.code}: ${e.message}\n`);
        return exitCodeOf(e.code);
      }
      throw e;
    }
    const checked = validateDevConfig(raw);
    if (!checked.ok) {
      for (const i of checked.issues)
        io.err(`lexroute dev: ${configFile}: ${i.code} ${i.path}: ${i.message}\n`);
      return exitCodeOfFailure(checked.issues);
    }
    const config = checked.config;
    const log = createLogger((l) => io.err(l), 'warn', io.errIsTTY ? 'pretty' : 'json');

    let chain: RunningDevChain;
    try {
      chain = await startDevChain({
        config,
        cwd: base,
        ...(dnsPort !== undefined ? { dnsPort } : {}),
        ...(httpPort !== undefined ? { httpPort } : {}),
        ...(values.catalogue !== undefined
          ? { catalogue: path.resolve(io.cwd, values.catalogue) }
          : {}),
        ...(values.dnssec ? { dnssec: true } : {}),
        log,
        ...(values.quiet
          ? {}
          : {
              onRequest: (name, e) => {
                if (e.msg !== 'request') return;
                const loc = typeof e.location === 'string' ? ` -> ${e.location}` : '';
                io.err(
                  `${name}: ${String(e.method)} ${String(e.target)} ${String(e.status)}${loc}\n`,
                );
              },
            }),
      });
    } catch (e) {
      if (e instanceof DevStartError) {
        io.err(`lexroute dev: ${e.code}: ${e.message}\n`);
        return exitCodeOf(e.code);
      }
      throw e;
    }
    io.out(describeChain(chain, config, configName));
    await stopSignal(io.signal).stopped;
    io.err('lexroute dev: stopping\n');
    await chain.close();
    io.err('lexroute dev: stopped\n');
    return EXIT_OK;
  },
};
