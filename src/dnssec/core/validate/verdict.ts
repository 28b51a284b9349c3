/**
 * The verdicts of the client's validation (RFC 4033 section 5, RFC 4035
 * section 4.3): secure, insecure (a proven end of the chain above the data),
 * or bogus (a coded reason). Names are in presentation form.
 */
import type { BogusCode, InsecureCode } from './codes.ts';

/** What a bogus or insecure verdict is about: the RRset, and the key tag and algorithm at fault. */
export interface VerdictAbout {
  readonly rrset?: { readonly name: string; readonly type: string };
  readonly keyTag?: number;
  readonly algorithm?: number;
}

export type Verdict =
  | {
      readonly status: 'secure';
      /** The zone whose keys signed the data. */
      readonly zone: string;
      /** The trust anchor the chain starts from. */
      readonly anchor: string;
    }
  | ({
      readonly status: 'insecure';
      readonly code: InsecureCode;
      /** Where the chain of trust ends (the unsigned delegation). */
      readonly zone: string;
      readonly detail: string;
      readonly anchor?: string;
    } & VerdictAbout)
  | ({
      readonly status: 'bogus';
      readonly code: BogusCode;
      readonly detail: string;
      readonly zone?: string;
    } & VerdictAbout);

export type Bogus = Extract<Verdict, { status: 'bogus' }>;
export type Insecure = Extract<Verdict, { status: 'insecure' }>;

export function bogus(
  code: BogusCode,
  detail: string,
  zone?: string,
  about: VerdictAbout = {},
): Bogus {
  return zone === undefined
    ? { status: 'bogus', code, detail, ...about }
    : { status: 'bogus', code, detail, zone, ...about };
}

/** `v` with what it is about, unless it already says (the deepest fault wins). */
export function about<V extends Verdict>(v: V, what: VerdictAbout): V {
  if (v.status === 'secure' || v.rrset !== undefined) return v;
  return { ...v, ...what };
}

export function insecure(
  code: InsecureCode,
  zone: string,
  detail: string,
  anchor?: string,
  about: VerdictAbout = {},
): Insecure {
  return anchor === undefined
    ? { status: 'insecure', code, zone, detail, ...about }
    : { status: 'insecure', code, zone, detail, anchor, ...about };
}

/** The verdict of several RRsets: the first bogus, else the first insecure, else the last secure. */
export function combine(verdicts: readonly Verdict[]): Verdict | undefined {
  return (
    verdicts.find((v) => v.status === 'bogus') ??
    verdicts.find((v) => v.status === 'insecure') ??
    verdicts[verdicts.length - 1]
  );
}

/** A non-secure verdict in one line (`BOGUS_SIGNATURE: … [a.example. NAPTR, key 12345 alg 13]`). */
export function verdictLine(v: Bogus | Insecure): string {
  const parts: string[] = [];
  if (v.rrset) parts.push(`${v.rrset.name} ${v.rrset.type}`);
  if (v.keyTag !== undefined) parts.push(`key ${v.keyTag}`);
  if (v.algorithm !== undefined) parts.push(`alg ${v.algorithm}`);
  return parts.length > 0
    ? `${v.code}: ${v.detail} [${parts.join(', ')}]`
    : `${v.code}: ${v.detail}`;
}
