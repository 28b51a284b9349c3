/**
 * `lexroute ctl`: talk to a running `lexroute serve --control PATH`.
 */
import { parseCommandArgs } from '../args.ts';
import path from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { EXIT_OK, Reported, UsageError, type CliIo, type Command } from '../io.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';
import { controlArg } from '../control-arg.ts';
import { writeNewControlKey, type ControlEndpoint } from '../../authority/control-endpoint.ts';
import { RESOLVER_CONTROL_COMMANDS } from '../../resolver/control.ts';
import { CONTROL_COMMANDS, sendControlCommand } from '../../authority/control.ts';
import { formatAnswer } from './ctl-format.ts';

export const CTL_HELP = `Usage: lexroute ctl --control PATH [--json] COMMAND [ZONE] [--force]
       lexroute ctl --control ADDR:PORT --control-key FILE [--json] COMMAND [ZONE] [--force]
       lexroute ctl keygen FILE

Ask a running server (started with lexroute serve --control PATH) or
jurisdiction resolver (lexroute resolver --control PATH) what it serves, or
tell it to reload or stop. The socket is mode 0600: run ctl as the server's
user. A control channel on a loopback TCP port (--control 127.0.0.1:PORT)
needs the same key file on both sides: each request is signed with it
(HMAC-SHA256 over a challenge the server sends), so a local user without the
key cannot command the server.

Server commands:
  status             version, uptime, workers, listen addresses, and per zone
                     the serial, records, when it was loaded and the last error;
                     each catalog consumed: serial, members by state, problems
  reload [ZONE]      re-read changed zone files now (as SIGHUP); with ZONE,
                     only that zone's file (if it changed; the others are
                     not looked at) and its result. A zone whose file fails to load
                     keeps its previous version; the error is reported and the
                     exit code is 1
  status ZONE, zone-status ZONE
                     one zone's serial, records, load time and last error; a
                     catalog consumed: its members (state, groups); a member:
                     its catalog
  zone add FILE|ORIGIN
                     serve a zone file from now on (its origin: the file
                     name's, else its $ORIGIN or SOA owner), or an ORIGIN
                     removed before or whose file appeared in a configured
                     folder; the catalog zone (serve --catalog) lists it.
                     Not kept across a restart (the configuration is)
  zone remove ORIGIN stop serving a primary zone (until zone add); the
                     catalog zone drops it, so its consumers drop it too
  retransfer ZONE [--force]
                     transfer a secondary zone whole (AXFR) from its
                     primaries now, even when the serials match; a transfer
                     that ends on a serial older than the one served is
                     refused (XFR_SERIAL_OLDER, exit 1) unless --force, the
                     way to go back to an older version of the primary
  stats              query, TCP and RRL counters since the start
  stop               shut the server down cleanly (as SIGTERM)

Resolver commands:
  status             version, uptime, workers, listen addresses, catalogue
                     size, answer cache (entries, bytes, hits, misses), when
                     the configuration was loaded and the last reload error
  reload             re-read the configuration file and the registries; keys
                     that need a restart (listen, catalogue, workers, log) are
                     reported, not applied; an invalid configuration is
                     refused (RESOLVER_RELOAD_FAILED, exit 1) and the previous
                     one keeps serving
  stats              requests by service and status, latency percentiles
                     from the histogram, answer-cache hits and misses
                     (summed over the workers)
  flush-cache        empty the answer cache
  stop               stop the resolver (and its workers) cleanly

Key:
  keygen FILE        write a new control key (32 random octets, base64) to
                     FILE, mode 0600; an existing FILE is never overwritten

Options:
  --control PATH     the control socket, or ADDR:PORT of a loopback TCP port
  --control-key FILE the key of a TCP control port
  --json             print the answer as JSON (one object)
  -h, --help         show this help

Exit codes: 0 done, 1 the server reported an error, cannot be reached
(CTL_UNREACHABLE), refused the key (CTL_AUTH_FAILED), or the key file cannot
be used (CONTROL_KEY_INVALID, CONTROL_KEY_WRITE), 2 usage error
(CONTROL_NOT_LOOPBACK, CONTROL_KEY_REQUIRED).
`;

const ALL_COMMANDS = [...new Set([...CONTROL_COMMANDS, ...RESOLVER_CONTROL_COMMANDS])];

/** `ctl keygen FILE`: a new key file, never over an existing one. */
async function keygen(io: CliIo, args: readonly string[]): Promise<number> {
  if (args.length !== 1) throw new UsageError('keygen takes one FILE');
  const file = path.resolve(io.cwd, args[0]!);
  try {
    await writeNewControlKey(file);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'EEXIST' ? 'it exists' : (e as Error).message;
    const code = 'CONTROL_KEY_WRITE';
    io.err(`lexroute ctl: ${code}: cannot write ${file}: ${why}\n`);
    return exitCodeOf(code);
  }
  io.out(`wrote a new control key to ${file} (mode 0600)\n`);
  return EXIT_OK;
}

/** `ctl zone add FILE|ORIGIN`, `ctl zone remove ORIGIN` (a FILE that exists here is sent absolute). */
async function zoneSet(
  io: CliIo,
  endpoint: ControlEndpoint | string,
  args: readonly string[],
  json: boolean,
): Promise<number> {
  const [verb, target] = args;
  if ((verb !== 'add' && verb !== 'remove') || target === undefined || args.length !== 2)
    throw new UsageError('zone takes add FILE|ORIGIN or remove ORIGIN');
  const full = path.resolve(io.cwd, target);
  const isFile = verb === 'add' && existsSync(full) && statSync(full).isFile();
  const answer = await sendControlCommand(endpoint, {
    command: 'zone',
    args: [verb, isFile ? full : target],
  });
  if (json) io.out(`${JSON.stringify(answer)}\n`);
  else if (!answer.ok) io.err(`lexroute ctl: ${formatAnswer('zone', answer)}`);
  else {
    const r = answer.result;
    const c = r.catalog as { zone: string; serial: number | null; members: number } | undefined;
    const cat = c
      ? `; catalog ${c.zone} serial ${String(c.serial)}, ${String(c.members)} members`
      : '';
    io.out(`${String(r.zone)}: ${verb === 'add' ? 'served' : 'removed'}${cat}\n`);
  }
  return answer.ok ? EXIT_OK : exitCodeOf(answer.code);
}

export const ctlCommand: Command = {
  async run(argv, io) {
    const parsed = parseCommandArgs(argv, io, CTL_HELP, {
      control: { type: 'string' },
      'control-key': { type: 'string' },
      json: { type: 'boolean' },
      force: { type: 'boolean' },
    });
    if (parsed === undefined) return EXIT_OK;
    const { values, positionals } = parsed;
    if (positionals[0] === 'keygen') return keygen(io, positionals.slice(1));
    const [command, ...args] = positionals;
    const known = ['keygen', ...ALL_COMMANDS].join(', ');
    if (command === undefined) throw new UsageError(`a command is required (${known})`);
    if (!(ALL_COMMANDS as readonly string[]).includes(command)) {
      throw new UsageError(`unknown command '${command}' (${known})`);
    }
    if (!values.control) throw new UsageError('--control PATH is required');
    const endpoint = await controlArg(io, 'ctl', values.control, values['control-key']);
    if (endpoint instanceof Reported) return exitCodeOfFailure(endpoint.codes);
    if (command === 'zone') return zoneSet(io, endpoint!, args, values.json === true);
    const oneZone = command === 'zone-status' || command === 'retransfer';
    const maxArgs = command === 'reload' || command === 'status' || oneZone ? 1 : 0;
    if (args.length > maxArgs || (oneZone && args.length === 0)) {
      throw new UsageError(
        oneZone
          ? `${command} takes one ZONE`
          : `${command} takes ${maxArgs ? 'at most one ZONE' : 'no argument'}`,
      );
    }
    if (values.force && command !== 'retransfer')
      throw new UsageError('--force goes with retransfer only');
    const sent = values.force ? [...args, '--force'] : args;
    const answer = await sendControlCommand(endpoint!, { command, args: sent });
    const shown = command === 'status' && args.length === 1 ? 'zone-status' : command;
    if (values.json) io.out(`${JSON.stringify(answer)}\n`);
    else if (answer.ok) io.out(formatAnswer(shown, answer));
    else io.err(`lexroute ctl: ${formatAnswer(shown, answer)}`);
    return answer.ok ? EXIT_OK : exitCodeOf(answer.code);
  },
};
