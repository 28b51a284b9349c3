import { EventEmitter } from 'node:events';
import { commands } from './commands/index.ts';
import { EXIT_STATUS, exitCodeOf } from './exit.ts';
import { EXIT_OK, UsageError, type CliIo } from './io.ts';

import { VERSION } from '../kit/version.ts';

export { VERSION };

/** Exit status when standard output's reader went away: 128 + SIGPIPE (13). */
export const EXIT_BROKEN_PIPE = EXIT_STATUS.brokenPipe;

export function mainHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => {
    const head = `  ${c.name.padEnd(width)}  ${c.summary}`;
    if (!c.subcommands) return head;
    const subs = `(${c.subcommands.join(' | ')})`;
    // Past 79 columns the list goes on its own line, under the summary (at 4 columns past 100).
    return head.length + subs.length < 79
      ? `${head} ${subs}`
      : `${head}\n${' '.repeat(width + 4 + subs.length < 100 ? width + 4 : 4)}${subs}`;
  });
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
    'Exit codes: 0 success, 1 invalid input or failure, 2 usage error,',
    '3 hand-off (resolve only: a NAPTR rule with flag P leaves the rest to',
    'another protocol), 141 when the reader of standard output went away',
    '(as a tool killed by SIGPIPE).',
    '',
  ].join('\n');
}

/** Run the CLI with the given arguments; returns the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    // A usage error like any other: the help goes to standard error, exit 2.
    io.err(mainHelp());
    return EXIT_STATUS.usage;
  }
  if (name === '-h' || name === '--help' || name === 'help') {
    io.out(mainHelp());
    return EXIT_OK;
  }
  if (name === '-V' || name === '--version') {
    io.out(`lexroute ${VERSION}\n`);
    return EXIT_OK;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.err(`lexroute: unknown command '${name}'\n\n${mainHelp()}`);
    return EXIT_STATUS.usage;
  }
  const command = await entry.load();
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`lexroute ${name}: ${e.message}\nTry 'lexroute ${name} --help'.\n`);
      return exitCodeOf(e.code);
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

/** Settles once every write made so far to `stream` has been handed to the OS. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}

/**
 * The process entry (`bin/lexroute.js`): exits with the command's code even
 * with a handle left open (the shell must not hang), but only once its
 * output is out (writes to a pipe are asynchronous; an empty write's
 * callback marks the moment).
 */
export async function main(): Promise<void> {
  // A reader gone (`... | head`): EPIPE on stdout exits quietly with 128 + SIGPIPE, as a Unix
  // tool would; log writes to a closed stderr are dropped (a server keeps serving).
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(EXIT_BROKEN_PIPE);
    throw e;
  });
  process.stderr.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
  const code = await run(process.argv.slice(2), processIo());
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}
