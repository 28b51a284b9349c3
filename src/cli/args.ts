import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type CliIo } from './io.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Strict option parsing shared by every command: mistakes are a UsageError
 * with node's message; `--help` prints `help` and returns undefined (exit 0).
 */
export function parseCommandArgs<O extends Options>(
  argv: readonly string[],
  io: Pick<CliIo, 'out'>,
  help: string,
  options: O,
) {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...options, ...HELP_OPTION },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  if ((parsed.values as { help?: boolean }).help !== true) return parsed;
  io.out(help);
  return undefined;
}

/** The option values `parseCommandArgs` gives for these options. */
export type CommandValues<O extends Options> = NonNullable<
  ReturnType<typeof parseCommandArgs<O>>
>['values'];
