/** TSIG keys for `serve`: BIND's key statements as `tsig-keygen` writes them (comments allowed). */
import type { TsigAlgorithm, TsigKey } from '../xfr/core/tsig.ts';
import { ALGORITHM_NAMES } from '../xfr/core/tsig.ts';
import { absoluteLowerName } from '../kit/core/names.ts';

export interface TsigKeyError {
  readonly code:
    'TSIG_KEY_SYNTAX' | 'TSIG_KEY_ALGORITHM' | 'TSIG_KEY_SECRET' | 'TSIG_KEY_DUPLICATE';
  readonly line: number;
  readonly message: string;
}

/** The algorithm of a text (BIND's spellings, and the wire names). */
export function tsigAlgorithm(text: string): TsigAlgorithm | undefined {
  const t = text.toLowerCase().replace(/\.$/, '');
  if (t === 'hmac-md5.sig-alg.reg.int') return 'hmac-md5';
  return t in ALGORITHM_NAMES ? (t as TsigAlgorithm) : undefined;
}

/** Base64 to octets, undefined when not base64. */
export function base64Secret(text: string): Uint8Array | undefined {
  const t = text.replace(/\s+/g, '');
  if (t === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(t) || t.length % 4 !== 0) return undefined;
  return new Uint8Array(Buffer.from(t, 'base64'));
}

/** Tokens of a BIND configuration text with their lines. */
function tokens(text: string): { t: string; line: number }[] {
  const out: { t: string; line: number }[] = [];
  let line = 1;
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      for (let k = i; k < stop; k++) if (text[k] === '\n') line++;
      i = stop;
    } else if (c === '"') {
      const end = text.indexOf('"', i + 1);
      const stop = end < 0 ? text.length : end;
      out.push({ t: text.slice(i, stop + 1), line });
      i = stop + 1;
    } else if ('{};'.includes(c)) {
      out.push({ t: c, line });
      i++;
    } else {
      let j = i;
      while (j < text.length && !/[\s{};"]/.test(text[j]!)) j++;
      out.push({ t: text.slice(i, j), line });
      i = j;
    }
  }
  return out;
}

const unquote = (t: string) => (t.startsWith('"') ? t.slice(1, -1) : t);

/** Parse BIND key statements; other statements are errors (a key file holds keys). */
export function parseTsigKeyFile(text: string): { keys: TsigKey[]; errors: TsigKeyError[] } {
  const toks = tokens(text);
  const keys: TsigKey[] = [];
  const errors: TsigKeyError[] = [];
  let i = 0;
  const expect = (v: string) => {
    const tok = toks[i];
    if (tok?.t !== v)
      throw {
        code: 'TSIG_KEY_SYNTAX',
        line: tok?.line ?? toks.at(-1)?.line ?? 1,
        message: `expected '${v}'${tok ? `, found '${tok.t}'` : ' before the end'}`,
      };
    i++;
  };
  while (i < toks.length) {
    const start = toks[i]!;
    try {
      expect('key');
      const name = toks[i++];
      if (name === undefined)
        throw { code: 'TSIG_KEY_SYNTAX', line: start.line, message: 'key name missing' };
      expect('{');
      let algorithm: TsigAlgorithm | undefined;
      let secret: Uint8Array | undefined;
      while (toks[i] !== undefined && toks[i]!.t !== '}') {
        const k = toks[i++]!;
        const v = toks[i++];
        if (v === undefined) break;
        if (k.t === 'algorithm') {
          algorithm = tsigAlgorithm(unquote(v.t));
          if (!algorithm)
            throw {
              code: 'TSIG_KEY_ALGORITHM',
              line: v.line,
              message: `unknown algorithm '${v.t}' (hmac-sha256, hmac-sha512, hmac-md5, ...)`,
            };
        } else if (k.t === 'secret') {
          secret = base64Secret(unquote(v.t));
          if (!secret)
            throw { code: 'TSIG_KEY_SECRET', line: v.line, message: 'secret must be base64' };
        } else
          throw { code: 'TSIG_KEY_SYNTAX', line: k.line, message: `unknown key clause '${k.t}'` };
        expect(';');
      }
      expect('}');
      expect(';');
      if (!algorithm || !secret)
        throw {
          code: 'TSIG_KEY_SYNTAX',
          line: start.line,
          message: 'a key needs algorithm and secret',
        };
      const n = absoluteLowerName(unquote(name.t));
      if (keys.some((k) => k.name === n))
        throw { code: 'TSIG_KEY_DUPLICATE', line: start.line, message: `key ${n} defined twice` };
      keys.push({ name: n, algorithm, secret });
    } catch (e) {
      errors.push(e as TsigKeyError);
      return { keys, errors };
    }
  }
  return { keys, errors };
}
