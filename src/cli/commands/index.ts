import type { Command } from '../io.ts';

export interface CommandEntry {
  readonly name: string;
  /** One line; `lexroute --help` appends the subcommands. */
  readonly summary: string;
  /** The subcommands `lexroute --help` prints (test/cli/help-table.test.ts checks them against the dispatch). */
  readonly subcommands?: readonly string[];
  load(): Promise<Command>;
}

/** Every top-level command, loaded lazily so `lexroute urn ...` stays fast. */
export const commands: readonly CommandEntry[] = [
  {
    name: 'urn',
    summary: 'parse, normalize and convert LEX URNs',
    subcommands: ['parse', 'normalize', 'key'],
    load: async () => (await import('./urn.ts')).urnCommand,
  },
  {
    name: 'zone',
    summary: 'check, print, build, explain, sign and diff zone files',
    subcommands: ['check', 'print', 'build', 'explain', 'sign', 'keygen', 'diff'],
    load: async () => (await import('./zone.ts')).zoneCommand,
  },
  {
    name: 'chain',
    summary: 'check a delegation chain over a list of URNs or codes',
    subcommands: ['check'],
    load: async () => (await import('./chain.ts')).chainCommand,
  },
  {
    name: 'serve',
    summary: 'run the authoritative DNS routing server',
    load: async () => (await import('./serve.ts')).serveCommand,
  },
  {
    name: 'ctl',
    summary: 'control a running server or resolver',
    subcommands: [
      'keygen',
      'status',
      'reload',
      'zone-status',
      'zone',
      'retransfer',
      'stats',
      'flush-cache',
      'stop',
    ],
    load: async () => (await import('./ctl.ts')).ctlCommand,
  },
  {
    name: 'resolve',
    summary: 'resolve a LEX URN through the DDDS chain to document URLs',
    load: async () => (await import('./resolve.ts')).resolveCommand,
  },
  {
    name: 'resolver',
    summary: 'run the jurisdiction resolver (THTTP URN-to-URL service)',
    load: async () => (await import('./resolver.ts')).resolverCommand,
  },
  {
    name: 'catalogue',
    summary: "manage the resolver's catalogue",
    subcommands: ['import', 'export', 'registry', 'migrate'],
    load: async () => (await import('./catalogue.ts')).catalogueCommand,
  },
  {
    name: 'dev',
    summary: 'start the whole sample chain locally (what npm start runs)',
    load: async () => (await import('./dev.ts')).devCommand,
  },
];
