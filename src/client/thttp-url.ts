/** THTTP URLs (RFC 2169) and text/uri-list bodies. No Node built-ins. */
import type { Service } from '../ddds/core/trace.ts';
import { HttpStepError } from './errors.ts';

/** The services of a THTTP step: the one `Service` type of the DDDS core. */
export type ThttpService = Service;

/** Split an absolute http(s) URL into origin and the raw path+query (no fragment). */
export function splitHttpUrl(raw: string): { origin: string; path: string } {
  const m = /^(https?):\/\/([^/?#]+)([^#]*)/i.exec(raw);
  if (!m) {
    throw new HttpStepError(
      'HTTP_UNSUPPORTED_SCHEME',
      `'${raw}' is not an absolute http or https URL; only THTTP over HTTP(S) is supported`,
      { url: raw },
    );
  }
  const origin = `${(m[1] as string).toLowerCase()}://${m[2] as string}`;
  try {
    new URL(origin);
  } catch {
    throw new HttpStepError('HTTP_BAD_URL', `'${raw}' has an invalid host or port`, { url: raw });
  }
  let path = m[3] ?? '';
  if (path === '' || path.startsWith('?')) path = `/${path}`;
  if (/[^\u0021-\u00ff]/.test(path)) {
    throw new HttpStepError(
      'HTTP_BAD_URL',
      `'${raw}' contains a space or control character in its path`,
      { url: raw },
    );
  }
  return { origin, path };
}

/** The THTTP request URL (`http(s)://host:port/uri-res/<service>?<AUS>`), from the DDDS core. */
export { thttpUrl } from '../ddds/core/walk.ts';

/** The absolute URIs of a text/uri-list body (`#` comments; CRLF, LF or CR; blanks skipped). */
export function parseUriList(text: string, base?: string): string[] {
  const out: string[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!URL.canParse(line)) {
      throw new HttpStepError(
        'HTTP_BAD_URL',
        `text/uri-list line ${i + 1} is not an absolute URI: '${line.slice(0, 200)}'`,
        base === undefined ? {} : { url: base },
      );
    }
    out.push(line);
  }
  return out;
}
