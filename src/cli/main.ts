import { EventEmitter } from 'node:events';
import { commands } from './commands/index.ts';
import { EXIT_USAGE, UsageError, type CliIo } from './io.ts';

export const VERSION = '0.1.0';

export function mainHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'lexroute: routing and resolution of LEX URNs (RFC 9676) through the DNS',
    '',
    'Usage: lexroute <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Options:',
    '  -h, --help     show this help (also: lexroute <command> --help)',
    '  -V, --version  print the version',
    '',
    'Exit codes: 0 success, 1 invalid input or failure, 2 usage error.',
    '',
  ].join('\n');
}

/** Run the CLI with the given arguments; returns the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.out(mainHelp());
    return name === undefined ? EXIT_USAGE : 0;
  }
  if (name === '-V' || name === '--version') {
    io.out(`lexroute ${VERSION}\n`);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.err(`lexroute: unknown command '${name}'\n\n${mainHelp()}`);
    return EXIT_USAGE;
  }
  const command = await entry.load();
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`lexroute ${name}: ${e.message}\nTry 'lexroute ${name} --help'.\n`);
      return EXIT_USAGE;
    }
    throw e;
  }
}

/** The real process: wires CliIo to stdio and signals. */
export function processIo(): CliIo {
  const controller = new AbortController();
  const reload = new EventEmitter();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.on('SIGHUP', () => reload.emit('reload'));
  return {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
    stdin: process.stdin,
    isTTY: Boolean(process.stdout.isTTY),
    errIsTTY: Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
    onReload(listener) {
      reload.on('reload', listener);
      return () => reload.off('reload', listener);
    },
  };
}

export async function main(): Promise<void> {
  const code = await run(process.argv.slice(2), processIo());
  process.exitCode = code;
  // Long-running commands have closed their sockets by now; make sure stray
  // handles (stdin, timers) do not keep the process alive.
  if (code !== 0 || !process.stdin.readableFlowing) {
    setImmediate(() => process.exit(code)).unref();
  }
}
