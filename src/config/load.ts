/** Read and parse a JSON configuration file; errors name the file and carry a stable code. */
import { readFile } from 'node:fs/promises';

export class ConfigFileError extends Error {
  readonly code: 'CONFIG_UNREADABLE' | 'CONFIG_BAD_JSON';
  readonly file: string;
  constructor(code: ConfigFileError['code'], file: string, message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ConfigFileError';
    this.code = code;
    this.file = file;
  }
}

export async function readJsonConfig(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ConfigFileError(
      'CONFIG_UNREADABLE',
      file,
      `${file}: cannot read (${(e as Error).message})`,
      e,
    );
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigFileError(
      'CONFIG_BAD_JSON',
      file,
      `${file}: not valid JSON (${(e as Error).message})`,
      e,
    );
  }
}
