/**
 * The Application Unique String (RFC 3404 section 4.1) of a LEX (or any
 * RFC 8141) URN, and the first key (digest 10.4, 15.43-15.52):
 * - AUS = normalised assigned-name + `?+r` + `?=q` when present (RFC 8141
 *   section 2.3.1); the f-component is removed and returned for the URL.
 * - LEX names are normalised (RFC 9676 section 3.3) so lowercase zone
 *   patterns match without `i`; other NIDs get RFC 8141 section 3.1 only.
 * - `~partition` stays in the AUS (RFC 9676 section 5.8) and is returned.
 * - Raw non-ASCII input (an IRI) is percent-encoded first (RFC 3987 3.1).
 */
import {
  encodeIri,
  normalizeLexUrn,
  parseUrn8141,
  splitPartition,
  type NormalizationChange,
  type UrnDiagnostic,
} from '../../urn/core/index.ts';
import { firstKey } from './step.ts';
import type { Err, Ok } from '../../kit/core/result.ts';

export interface Aus {
  /** The Application Unique String every rule applies to. */
  readonly aus: string;
  /** The normalised assigned-name (`urn:` NID `:` NSS), partition included. */
  readonly assignedName: string;
  /** NID, lowercased. */
  readonly nid: string;
  /** `<nid>.urn.arpa.` (RFC 3404 section 4.2). */
  readonly firstKey: string;
  readonly rComponent?: string;
  readonly qComponent?: string;
  /** The f-component (after `#`), removed from the AUS. */
  readonly fragment?: string;
  /** The LEX partition id (after a literal `~`), still part of the AUS. */
  readonly partition?: string;
  /** What normalisation changed (LEX input). */
  readonly changes: readonly NormalizationChange[];
  /** True when raw non-ASCII input was percent-encoded first. */
  readonly iriEncoded: boolean;
}

/** `buildAus` failed: `error` is the URN parser's diagnostic (`errors[0]`; `errors` the list). */
export interface AusErr extends Err<UrnDiagnostic> {
  readonly errors: readonly UrnDiagnostic[];
  /** The text the error spans refer to (differs from the input only after IRI encoding). */
  readonly text: string;
}

/** A `Result<Aus, UrnDiagnostic>`. */
export type BuildAusResult = Ok<Aus> | AusErr;

/** `error` is a getter: `{...r}` and JSON show `ok`, `errors` and `text` as before. */
class AusRefused implements AusErr {
  readonly ok = false as const;
  readonly errors: readonly UrnDiagnostic[];
  readonly text: string;
  constructor(errors: readonly UrnDiagnostic[], text: string) {
    this.errors = errors;
    this.text = text;
  }
  get error(): UrnDiagnostic {
    return this.errors[0]!;
  }
}

function upperPercent(text: string): string {
  return text.replace(/%[0-9a-fA-F]{2}/g, (m) => m.toUpperCase());
}

/** Build the AUS, the first key, and the fragment/partition to apply at the end. */
export function buildAus(urnText: string): BuildAusResult {
  const iri = encodeIri(urnText);
  const iriEncoded = iri.encoded;
  const text = iri.text;
  const head = /^urn:([A-Za-z0-9-]+):/i.exec(text);
  const isLex = head !== null && head[1]?.toLowerCase() === 'lex';
  let canonical = text;
  let changes: readonly NormalizationChange[] = [];
  if (isLex) {
    const n = normalizeLexUrn(text);
    if (!n.ok) return new AusRefused(n.errors, text);
    canonical = n.canonical;
    changes = n.changes;
  }
  const parsed = parseUrn8141(canonical);
  if (!parsed.ok) return new AusRefused(parsed.errors, text);
  const u = parsed.value;
  const nid = u.nid.text.toLowerCase();
  const assignedName = isLex ? u.assignedName.text : `urn:${nid}:${upperPercent(u.nss.text)}`;
  let aus = assignedName;
  if (u.rComponent !== undefined) aus += `?+${u.rComponent.text}`;
  if (u.qComponent !== undefined) aus += `?=${u.qComponent.text}`;
  const partition = isLex ? splitPartition(assignedName).partition : undefined;
  return {
    ok: true,
    value: {
      aus,
      assignedName,
      nid,
      firstKey: firstKey(nid),
      ...(u.rComponent !== undefined && { rComponent: u.rComponent.text }),
      ...(u.qComponent !== undefined && { qComponent: u.qComponent.text }),
      ...(u.fComponent !== undefined && { fragment: u.fComponent.text }),
      ...(partition !== undefined && { partition }),
      changes,
      iriEncoded,
    },
  };
}
