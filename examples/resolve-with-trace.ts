/**
 * Resolve a LEX URN through the DNS and print every DDDS step.
 *
 *   node examples/resolve-with-trace.ts <urn> [--server HOST:PORT | --root HOST:PORT] [--no-http]
 *
 * With `npm start` running (the sample chain), try
 *   node examples/resolve-with-trace.ts 'urn:lex:it:stato:legge:2000-04-03;56~art1' --root 127.0.0.1:5300
 * Without --server or --root the system's resolvers (/etc/resolv.conf) are asked.
 */
import { parseArgs } from 'node:util';
import { formatTrace, ResolveError, resolveLexUrn } from 'lexroute';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    server: { type: 'string' },
    root: { type: 'string' },
    'no-http': { type: 'boolean' },
  },
});
const urn = positionals[0];
if (urn === undefined) {
  console.error(
    'usage: resolve-with-trace.ts <urn> [--server HOST:PORT | --root HOST:PORT] [--no-http]',
  );
  process.exit(2);
}

try {
  const result = await resolveLexUrn(urn, {
    ...(values.server !== undefined && { servers: [values.server] }),
    ...(values.root !== undefined && { root: values.root }),
    noHttp: values['no-http'] === true,
  });
  console.log(formatTrace(result.trace));
  if (result.kind === 'resolved') {
    // urls: the document URLs (or, with --no-http, the resolver's URL).
    for (const url of result.urls.length > 0 ? result.urls : [result.resolverUrl]) console.log(url);
  } else {
    console.log(`handed off to ${result.handoff.protocol}: ${result.handoff.output}`);
  }
} catch (e) {
  if (!(e instanceof ResolveError)) throw e;
  console.log(formatTrace(e.trace));
  console.error(`${e.code}: ${e.message}`);
  process.exitCode = 1;
}
