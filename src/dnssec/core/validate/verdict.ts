/**
 * The verdicts of the client's validation (RFC 4033 section 5, RFC 4035
 * section 4.3): secure (a chain of signatures from a trust anchor),
 * insecure (a signed proof that the chain ends above the data: an unsigned
 * delegation, an opt-out span, only unsupported algorithms, or no anchor),
 * bogus (a coded reason). Names are in presentation form.
 */
import type { BogusCode, InsecureCode } from './codes.ts';

export type Verdict =
  | {
      readonly status: 'secure';
      /** The zone whose keys signed the data. */
      readonly zone: string;
      /** The trust anchor the chain starts from. */
      readonly anchor: string;
    }
  | {
      readonly status: 'insecure';
      readonly code: InsecureCode;
      /** Where the chain of trust ends (the unsigned delegation). */
      readonly zone: string;
      readonly detail: string;
      readonly anchor?: string;
    }
  | {
      readonly status: 'bogus';
      readonly code: BogusCode;
      readonly detail: string;
      readonly zone?: string;
    };

export type Bogus = Extract<Verdict, { status: 'bogus' }>;
export type Insecure = Extract<Verdict, { status: 'insecure' }>;

export function bogus(code: BogusCode, detail: string, zone?: string): Bogus {
  return zone === undefined
    ? { status: 'bogus', code, detail }
    : { status: 'bogus', code, detail, zone };
}

export function insecure(
  code: InsecureCode,
  zone: string,
  detail: string,
  anchor?: string,
): Insecure {
  return anchor === undefined
    ? { status: 'insecure', code, zone, detail }
    : { status: 'insecure', code, zone, detail, anchor };
}

/** The verdict of several RRsets: the first bogus, else the first insecure, else the last secure. */
export function combine(verdicts: readonly Verdict[]): Verdict | undefined {
  return (
    verdicts.find((v) => v.status === 'bogus') ??
    verdicts.find((v) => v.status === 'insecure') ??
    verdicts[verdicts.length - 1]
  );
}
