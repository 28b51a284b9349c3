import { execFileSync } from 'node:child_process';

/** Path of an external program, or undefined when it is not installed. */
export function which(program: string): string | undefined {
  try {
    const out = execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();
    return out || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reference tools (dig, named, nsd, ...) are installed by .ci/run. In CI a
 * missing tool is a failure; on a developer machine the test is skipped with
 * the reason, so `npm test` still works without them.
 */
export function toolOrSkip(program: string): { path: string | undefined; skipReason?: string } {
  const path = which(program);
  if (path) return { path };
  if (process.env.CI) throw new Error(`${program} is required in CI (.ci/run installs it)`);
  return { path: undefined, skipReason: `${program} not installed` };
}

/**
 * The shared folder beside the project (spec, docs, data, external test data):
 * `../shared/` next to the checkout, or LEXROUTE_SHARED when set.
 */
export const SHARED = process.env.LEXROUTE_SHARED
  ? process.env.LEXROUTE_SHARED.replace(/\/?$/, '/')
  : new URL('../../../shared/', import.meta.url).pathname;
