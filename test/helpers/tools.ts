import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';

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

/**
 * An external corpus under SHARED (`rel`, a file or folder), or the reason it
 * is absent. The corpora are not in the repository (see the README, "Test
 * corpora"): on a fresh clone without `../shared` the tests that read them
 * are skipped with this reason; in CI a missing corpus fails.
 */
export function corpusOrSkip(rel: string): { path: string; skipReason?: string } {
  const path = SHARED + rel;
  if (existsSync(path)) return { path };
  const reason = `external corpus ${rel} is not in ${SHARED} (README, "Test corpora")`;
  if (process.env.CI) throw new Error(`${reason}; it is required in CI`);
  console.warn(`skipped: ${reason}`);
  return { path, skipReason: reason };
}

/** A suite title that says why it is skipped, when it is. */
export function titled(title: string, c: { skipReason?: string }): string {
  return c.skipReason === undefined ? title : `${title} (skipped: ${c.skipReason})`;
}

/** Run a program to its end: exit code (0, or the failure's) and stdout + stderr together. */
export async function runTool(cmd: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await promisify(execFile)(cmd, args, { encoding: 'utf8' });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? 1, out: `${x.stdout ?? ''}${x.stderr ?? ''}` };
  }
}
