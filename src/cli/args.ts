import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Strict option parsing shared by every command: unknown options and missing
 * values become a UsageError (exit code 2) with node's own message.
 */
export function parseCommandArgs<O extends Options>(argv: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}
