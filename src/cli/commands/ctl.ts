/**
 * `lexroute ctl`: talk to a running `lexroute serve --control PATH`.
 */
import { parseCommandArgs } from '../args.ts';
import { EXIT_FAIL, EXIT_OK, UsageError, type Command } from '../io.ts';
import {
  CONTROL_COMMANDS,
  sendControlCommand,
  type ControlAnswer,
  type ZoneReport,
} from '../../server/control.ts';

export const CTL_HELP = `Usage: lexroute ctl --control PATH [--json] COMMAND [ZONE]

Ask a running server (started with lexroute serve --control PATH) what it
serves, or tell it to reload or stop. The socket is mode 0600: run ctl as the
server's user.

Commands:
  status             version, uptime, workers, listen addresses, and per zone
                     the serial, records, when it was loaded and the last error
  reload [ZONE]      re-read changed zone files now (as SIGHUP); with ZONE,
                     report that zone's result. A zone whose file fails to load
                     keeps its previous version; the error is reported and the
                     exit code is 1
  zone-status ZONE   one zone's serial, records, load time and last error
  stats              query, TCP and RRL counters since the start
  stop               shut the server down cleanly (as SIGTERM)

Options:
  --control PATH     the server's control socket
  --json             print the answer as JSON (one object)
  -h, --help         show this help

Exit codes: 0 done, 1 the server reported an error or cannot be reached
(CTL_UNREACHABLE), 2 usage error.
`;

function zoneLine(z: ZoneReport): string {
  const name = z.zone || `(${z.file ?? '?'})`;
  const serial = z.serial === undefined ? 'no serial' : `serial ${z.serial}`;
  const records = z.records === undefined ? '' : `  ${z.records} records`;
  const loaded = z.loadedAt ? `  loaded ${z.loadedAt}` : '  never loaded';
  const err =
    z.lastResult === 'failed'
      ? `\n      last reload FAILED ${z.lastAttemptAt}: ${z.lastError ?? ''}`
      : '';
  return `  ${name}  ${serial}${records}${loaded}${err}`;
}

/** The human form of an answer. */
export function formatAnswer(command: string, a: ControlAnswer): string {
  if (!a.ok) {
    const zones = a.result && Array.isArray(a.result.zones) ? (a.result.zones as ZoneReport[]) : [];
    const extra = zones.length > 0 ? `\n${zones.map(zoneLine).join('\n')}` : '';
    return `${a.code}: ${a.message}${extra}\n`;
  }
  const r = a.result;
  switch (command) {
    case 'status': {
      const zones = r.zones as ZoneReport[];
      return (
        `lexroute ${String(r.version)}, pid ${String(r.pid)}, up ${String(r.uptimeSeconds)} s, ` +
        `${String(r.workers)} worker(s), listening on ${(r.listen as string[]).join(' ')}` +
        `${r.rrl ? ', RRL on' : ''}\n` +
        `zones (${zones.length}):\n${zones.map(zoneLine).join('\n')}\n`
      );
    }
    case 'zone-status':
      return `${zoneLine(r as unknown as ZoneReport).trimStart()}\n`;
    case 'reload': {
      const head = `reloaded: ${String(r.loaded)} loaded, ${String(r.unchanged)} unchanged, ${String(r.failed)} failed, ${String(r.removed)} removed`;
      if (Array.isArray(r.zones))
        return `${head}\n${(r.zones as ZoneReport[]).map(zoneLine).join('\n')}\n`;
      return `${head}\n${zoneLine(r as unknown as ZoneReport)}\n`;
    }
    case 'stop':
      return 'stopping\n';
    default:
      return `${JSON.stringify(r, null, 2)}\n`;
  }
}

export const ctlCommand: Command = {
  name: 'ctl',
  summary: 'control a running server (status | reload | zone-status | stats | stop)',
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      control: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      io.out(CTL_HELP);
      return EXIT_OK;
    }
    if (!values.control) throw new UsageError('--control PATH is required');
    const [command, ...args] = positionals;
    if (command === undefined)
      throw new UsageError(`a command is required (${CONTROL_COMMANDS.join(', ')})`);
    if (!(CONTROL_COMMANDS as readonly string[]).includes(command)) {
      throw new UsageError(`unknown command '${command}' (${CONTROL_COMMANDS.join(', ')})`);
    }
    const maxArgs = command === 'reload' || command === 'zone-status' ? 1 : 0;
    if (args.length > maxArgs || (command === 'zone-status' && args.length === 0)) {
      throw new UsageError(
        command === 'zone-status'
          ? 'zone-status takes one ZONE'
          : `${command} takes ${maxArgs ? 'at most one ZONE' : 'no argument'}`,
      );
    }
    const answer = await sendControlCommand(values.control, { command, args });
    if (values.json) io.out(`${JSON.stringify(answer)}\n`);
    else if (answer.ok) io.out(formatAnswer(command, answer));
    else io.err(`lexroute ctl: ${formatAnswer(command, answer)}`);
    return answer.ok ? EXIT_OK : EXIT_FAIL;
  },
};
