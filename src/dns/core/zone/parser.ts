/**
 * RFC 1035 section 5 master-file parser: text in, records and diagnostics
 * out. `$INCLUDE` reads files only through the caller's `includeSource`.
 * RFC 2308 section 4 (`$TTL`), RFC 3597 section 5 (`TYPEnnn`, `\#`).
 */
import { Lexer, TOKEN_ESCAPED, TOKEN_QUOTED } from './lexer.ts';
import type { ResourceRecord, SourcePosition, ZoneDiagnostic } from './model.ts';
import { ZoneStore, type RecordSink } from './store.ts';
import { recordViews } from './views.ts';
import { isZoneCode, type ZoneCode } from './codes.ts';
import { encodeName, NAME_ERROR_MESSAGES, nameToText, type NameError } from './names.ts';
import { encodeRdataTokens } from '../rr/rdata/registry.ts';
import { ByteWriter, parseTtl, parseUint, RDATA_SCRATCH_SIZE } from '../rr/rdata/layout.ts';
import { CLASS_CODES, META_TYPES, TYPE_CODES, TYPE_SOA } from '../rr/types.ts';

export { rrToPresentation } from './writer.ts';

export interface ParseOptions {
  /** Initial origin (absolute; a missing trailing dot is added). */
  readonly origin?: string;
  /** File name used in positions (default `<zone>`). */
  readonly file?: string;
  /** TTL for records with no TTL when no `$TTL` was seen. */
  readonly defaultTtl?: number;
  /** Reads an `$INCLUDE`d file; `fromFile` is the including file. Without it `$INCLUDE` is an error. */
  readonly includeSource?: (path: string, fromFile: string) => string | undefined;
  /** Nesting limit for `$INCLUDE` (default 10). */
  readonly maxIncludeDepth?: number;
  /** Longest entry in characters (default 1 MiB; the longest RDATA in hex is about 128 Ki). */
  readonly maxEntryChars?: number;
  /**
   * Where records go as they are read (a `ZoneStore` to build a zone from).
   * With a sink, `ParseResult.records` is empty.
   */
  readonly sink?: RecordSink;
}

/** A `; expect <urn> -> <result>` directive, bound to the owner it follows. */
export interface ExpectDirective {
  readonly owner: string | undefined;
  readonly text: string;
  readonly position: SourcePosition;
}

export interface ParseResult {
  /** The records in file order (empty when the caller gave a sink). */
  readonly records: ResourceRecord[];
  readonly diagnostics: ZoneDiagnostic[];
  /** The origin: the option, else the first `$ORIGIN`, else the first SOA owner. */
  readonly origin?: string;
  /** `; expect` directives, in file order. */
  readonly expects: ExpectDirective[];
  /** Owner of the first SOA record read (absolute), to compare with an origin given from outside. */
  readonly soaOwner?: string;
  /** The parse stopped early (an entry over `maxEntryChars`): the rest of the text was not read. */
  readonly stopped?: boolean;
}

const NO_ORIGIN = 'relative name but no origin is known ($ORIGIN or --origin)';

/** Default `maxEntryChars`. */
export const DEFAULT_MAX_ENTRY_CHARS = 1 << 20;

interface State {
  file: string;
  origin: Uint8Array | undefined;
  originText: string | undefined;
  defaultTtl: number | undefined;
  lastTtl: number | undefined;
  lastOwner: string | undefined;
  lastOwnerRaw: string | undefined;
  lastOwnerOrigin: string | undefined;
  depth: number;
  /** A $ORIGIN was read since the last explicit owner. */
  originChanged: boolean;
}

/** Canonical spelling of an absolute origin string; undefined when invalid. */
function originWire(origin: string): { wire: Uint8Array; text: string } | NameError | 'RELATIVE' {
  const buf = new Uint8Array(512);
  const abs = origin.endsWith('.') && !origin.endsWith('\\.') ? origin : origin + '.';
  const r = encodeName(abs, 0, abs.length, undefined, buf, 0, true);
  if (typeof r !== 'number') return r;
  return { wire: buf.slice(0, r), text: nameToText(buf, 0, true) };
}

/** True when `origin` is a valid absolute or relative domain name (to check an --origin). */
export function isValidOrigin(origin: string): boolean {
  return typeof originWire(origin) === 'object';
}

export function parseZoneText(text: string, options: ParseOptions = {}): ParseResult {
  return parseZoneChunks([text], options);
}

/** parseZoneText over a text given in pieces, which may split an entry anywhere. */
export function parseZoneChunks(chunks: Iterable<string>, options: ParseOptions = {}): ParseResult {
  const session = new ZoneParseSession(options);
  for (const piece of chunks) {
    session.push(piece);
    if (session.stopped) break;
  }
  return session.end();
}

/**
 * A parse fed piece by piece (`push`, then `end`). A carried-over partial
 * entry is lexed again only once as much new text has arrived, so the work
 * stays linear however long an entry is.
 */
export class ZoneParseSession {
  private readonly p: Parser;
  private readonly state: State;
  private readonly maxEntry: number;
  private carry = '';
  private line = 1;
  private pending: string[] = [];
  private pendingChars = 0;
  private done = false;
  private halted = false;

  constructor(options: ParseOptions = {}) {
    this.p = new Parser(options);
    this.maxEntry = options.maxEntryChars ?? DEFAULT_MAX_ENTRY_CHARS;
    const given = options.origin === undefined ? undefined : originWire(options.origin);
    if (typeof given === 'string')
      this.p.diagnostics.push({
        code: 'ZONE_BAD_ORIGIN',
        message: `origin ${JSON.stringify(options.origin)} is not a valid domain name`,
        severity: 'error',
        token: options.origin!,
      });
    const origin = typeof given === 'object' ? given : undefined;
    this.state = {
      file: options.file ?? '<zone>',
      origin: origin?.wire,
      originText: origin?.text,
      defaultTtl: undefined,
      lastTtl: undefined,
      lastOwner: undefined,
      lastOwnerRaw: undefined,
      lastOwnerOrigin: undefined,
      depth: 0,
      originChanged: false,
    };
    this.p.firstOrigin = this.state.originText;
  }

  /** True once the parse stopped early: further pieces are ignored. */
  get stopped(): boolean {
    return this.halted;
  }

  /** The next piece of the text. */
  push(piece: string): void {
    if (this.halted || this.done || piece === '') return;
    this.pending.push(piece);
    this.pendingChars += piece.length;
    // Re-lexing the carry costs its length: wait for as much new text.
    if (this.pendingChars < this.carry.length) return;
    this.lex(false);
  }

  private lex(final: boolean): void {
    const text =
      this.carry + (this.pending.length === 1 ? this.pending[0]! : this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
    const r = this.p.lexPiece(text, this.line, final, this.state);
    this.carry = r.rest;
    this.line = r.line;
    if (!final && this.carry.length > this.maxEntry) {
      this.p.diagnostics.push({
        code: 'ZONE_ENTRY_TOO_LONG',
        message: `an entry (or comment line) is longer than ${this.maxEntry} characters; the rest of the file was not read`,
        severity: 'error',
        position: { file: this.state.file, line: this.line, column: 1 },
      });
      this.halted = true;
      this.carry = '';
    }
  }

  /** The text is complete: parse what is left and give the result. */
  end(): ParseResult {
    if (!this.done && !this.halted) this.lex(true);
    this.done = true;
    const p = this.p;
    return {
      records: this.p.options.sink ? [] : recordViews(p.sink as ZoneStore, true),
      diagnostics: p.diagnostics,
      expects: p.expects,
      ...(p.firstOrigin !== undefined ? { origin: p.firstOrigin } : {}),
      ...(p.soaOwner !== undefined ? { soaOwner: p.soaOwner } : {}),
      ...(this.halted ? { stopped: true } : {}),
    };
  }
}

/**
 * Scratch space of this thread's parsers, made once: an entry's RDATA and
 * names are encoded here and copied out before the next entry.
 */
// eslint-disable-next-line no-restricted-syntax -- scratch only: written and read within one entry, no state survives it
let scratch: { w: ByteWriter; nameBuf: Uint8Array; nameCodes: Uint16Array } | undefined;
const scratchSpace = () =>
  (scratch ??= {
    w: new ByteWriter(RDATA_SCRATCH_SIZE),
    nameBuf: new Uint8Array(512),
    nameCodes: new Uint16Array(1024),
  });

class Parser {
  readonly sink: RecordSink;
  readonly diagnostics: ZoneDiagnostic[] = [];
  readonly expects: ExpectDirective[] = [];
  firstOrigin: string | undefined;
  soaOwner: string | undefined;
  private firstClass: number | undefined;
  private readonly w = scratchSpace().w;
  private readonly nameBuf = scratchSpace().nameBuf;
  private readonly nameCodes = scratchSpace().nameCodes;
  readonly options: ParseOptions;
  private readonly maxDepth: number;
  /** The state of the file being read (an `$INCLUDE`d file's while it is read). */
  private state!: State;

  constructor(options: ParseOptions) {
    this.options = options;
    this.sink = options.sink ?? new ZoneStore();
    this.maxDepth = options.maxIncludeDepth ?? 10;
  }

  private diag(
    code: ZoneCode,
    message: string,
    line: number,
    column: number,
    token: string | undefined,
    severity: 'error' | 'warning' = 'error',
  ): void {
    this.diagnostics.push({
      code,
      message,
      severity,
      position: { file: this.state.file, line, column },
      ...(token !== undefined ? { token } : {}),
    });
  }

  private tokDiag(
    lex: Lexer,
    i: number,
    code: ZoneCode,
    message: string,
    severity: 'error' | 'warning' = 'error',
  ) {
    if (i < 0 || i >= lex.count) {
      const last = lex.count - 1;
      const col =
        lex.cols[last]! +
        (lex.ends[last]! - lex.starts[last]!) +
        (lex.flags[last]! & TOKEN_QUOTED ? 2 : 0);
      this.diag(code, message, lex.lines[last]!, col, '', severity);
    } else this.diag(code, message, lex.lines[i]!, lex.cols[i]!, lex.raw(i), severity);
  }

  /**
   * Parse one piece of text starting at `line`. Unless `final`, an entry cut
   * by the end of the piece is left unread and returned as `rest`.
   */
  lexPiece(
    text: string,
    line: number,
    final: boolean,
    state: State,
  ): { rest: string; line: number } {
    const outer = this.state;
    this.state = state;
    const lex = new Lexer(text, line, final);
    let nextExpect = 0;
    const bindExpects = (beforeLine: number) => {
      while (nextExpect < lex.expects.length && lex.expects[nextExpect]!.line < beforeLine) {
        const e = lex.expects[nextExpect++]!;
        this.expects.push({
          owner: state.lastOwner,
          text: e.text,
          position: { file: state.file, line: e.line, column: e.column },
        });
      }
    };
    // The lexer's findings go out before the entry they precede (or belong
    // to), so that the order is the same however the text was cut.
    let flushed = 0;
    const flush = () => {
      for (; flushed < lex.diagnostics.length; flushed++) {
        const d = lex.diagnostics[flushed]!;
        this.diag(d.code, d.message, d.line, d.column, d.token);
      }
    };
    while (lex.next()) {
      flush();
      bindExpects(lex.entryLine);
      this.entry(lex, state);
      bindExpects(lex.lines[lex.count - 1]! + 1);
    }
    bindExpects(final ? Number.MAX_SAFE_INTEGER : lex.nextLine);
    flush();
    this.state = outer;
    return final ? { rest: '', line: lex.nextLine } : { rest: lex.rest(), line: lex.nextLine };
  }

  private entry(lex: Lexer, state: State): void {
    const text = lex.text;
    const s0 = lex.starts[0]!;
    // Directives: $ORIGIN, $TTL, $INCLUDE ($GENERATE is BIND-specific).
    if (!lex.blankOwner && !(lex.flags[0]! & TOKEN_QUOTED) && text.charCodeAt(s0) === 0x24) {
      this.directive(lex, state);
      return;
    }
    let t = 0;
    let owner: string | undefined;
    if (lex.blankOwner) {
      owner = state.lastOwner;
      if (owner !== undefined && state.originChanged) {
        this.tokDiag(
          lex,
          0,
          'ZONE_INHERITED_OWNER',
          `record with a blank owner right after $ORIGIN: it belongs to ${owner}, not to the new origin`,
          'warning',
        );
      }
      state.originChanged = false;
      if (owner === undefined) {
        this.tokDiag(
          lex,
          0,
          'ZONE_NO_OWNER',
          'the first record has no owner name (a blank owner repeats the previous one)',
        );
        return;
      }
    } else {
      state.originChanged = false;
      owner = this.ownerName(lex, state, 0);
      if (owner === undefined) {
        // A blank owner after a bad one has no previous owner to repeat.
        state.lastOwner = undefined;
        state.lastOwnerRaw = undefined;
        return;
      }
      t = 1;
    }
    // TTL and class, in either order (RFC 1035 section 5.1).
    let ttl = -1;
    let cls = -1;
    for (let k = 0; k < 2 && t < lex.count; k++) {
      if (lex.flags[t]! & TOKEN_QUOTED) break;
      const s = lex.starts[t]!;
      const e = lex.ends[t]!;
      const c = text.charCodeAt(s);
      if (ttl < 0 && c >= 0x30 && c <= 0x39) {
        ttl = this.ttlToken(lex, t);
        if (ttl < 0) return;
        t++;
        continue;
      }
      if (cls < 0) {
        const v = this.classCode(text, s, e);
        if (v >= 0) {
          cls = v;
          t++;
          continue;
        }
      }
      break;
    }
    if (t >= lex.count) {
      this.tokDiag(lex, -1, 'ZONE_MISSING_TYPE', 'record has no type');
      return;
    }
    const type = this.typeCode(text, lex.starts[t]!, lex.ends[t]!);
    if (type < 0 || lex.flags[t]! & TOKEN_QUOTED) {
      const tok = lex.token(t);
      const looksNumeric = /^[0-9]/.test(tok);
      if (type === -2)
        this.tokDiag(lex, t, 'ZONE_BAD_TYPE', 'type number out of range (TYPE0-TYPE65535)');
      else if (looksNumeric && ttl >= 0)
        this.tokDiag(lex, t, 'ZONE_BAD_TTL', 'a record has at most one TTL');
      else
        this.tokDiag(
          lex,
          t,
          'ZONE_UNKNOWN_TYPE',
          `unknown type ${JSON.stringify(tok)} (write TYPEnnn with \\# RDATA for others, RFC 3597)`,
        );
      return;
    }
    if (META_TYPES.has(type)) {
      this.tokDiag(
        lex,
        t,
        'ZONE_META_TYPE',
        `${lex.token(t)} is a query or meta type and cannot appear in a zone file`,
      );
      return;
    }
    const typeTok = t;
    t++;
    if (cls < 0) cls = this.firstClass ?? 1;
    else if (this.firstClass !== undefined && cls !== this.firstClass) {
      this.tokDiag(
        lex,
        0,
        'ZONE_CLASS_MISMATCH',
        'class differs from the first record of the zone',
      );
      return;
    }
    if (this.firstClass === undefined) this.firstClass = cls;
    this.w.reset();
    const err = encodeRdataTokens(lex, t, type, state.origin, this.w);
    if (err) {
      this.tokDiag(lex, err.tokenIndex, err.code, err.message);
      return;
    }
    if (ttl >= 0) state.lastTtl = ttl;
    else if (state.defaultTtl !== undefined) ttl = state.defaultTtl;
    else if (state.lastTtl !== undefined) ttl = state.lastTtl;
    else if (this.options.defaultTtl !== undefined) ttl = this.options.defaultTtl;
    else if (type === TYPE_SOA) {
      // RFC 1035 era: no $TTL, the SOA MINIMUM is the default (BIND does the same, with a warning).
      const b = this.w.buf;
      const n = this.w.len;
      ttl = ((b[n - 4]! << 24) | (b[n - 3]! << 16) | (b[n - 2]! << 8) | b[n - 1]!) >>> 0;
      state.lastTtl = ttl;
      this.tokDiag(
        lex,
        typeTok,
        'ZONE_TTL_FROM_SOA',
        'no TTL and no $TTL: using the SOA MINIMUM as TTL',
        'warning',
      );
    } else {
      this.tokDiag(
        lex,
        typeTok,
        'ZONE_NO_TTL',
        'no TTL: give one on the record, or a $TTL line before it',
      );
      return;
    }
    if (type === TYPE_SOA) {
      if (this.firstOrigin === undefined) this.firstOrigin = owner;
      if (this.soaOwner === undefined) this.soaOwner = owner;
    }
    // The record's position: its entry's line, and the column of its first token.
    this.sink.add(
      owner,
      type,
      cls,
      ttl,
      this.w.buf,
      this.w.len,
      lex.entryLine,
      state.file,
      lex.cols[0]!,
    );
  }

  private ownerName(lex: Lexer, state: State, i: number): string | undefined {
    const text = lex.text;
    const s = lex.starts[i]!;
    const e = lex.ends[i]!;
    if (lex.flags[i]! & TOKEN_QUOTED) {
      this.tokDiag(lex, i, 'ZONE_BAD_NAME', 'an owner name cannot be quoted');
      return undefined;
    }
    if (e - s === 1 && text.charCodeAt(s) === 0x40) {
      if (state.originText === undefined) {
        this.tokDiag(
          lex,
          i,
          'ZONE_NO_ORIGIN',
          '@ used but no origin is known ($ORIGIN or --origin)',
        );
        return undefined;
      }
      state.lastOwner = state.originText;
      state.lastOwnerRaw = undefined;
      return state.originText;
    }
    // The same spelling under the same origin gives the same (shared) string.
    if (
      state.lastOwnerRaw !== undefined &&
      state.lastOwnerOrigin === state.originText &&
      e - s === state.lastOwnerRaw.length &&
      text.startsWith(state.lastOwnerRaw, s)
    ) {
      if (state.lastOwner !== undefined) return state.lastOwner;
    }
    const name = this.nameText(lex, state, i);
    if (name === undefined) return undefined;
    state.lastOwner = name;
    state.lastOwnerRaw = text.slice(s, e);
    state.lastOwnerOrigin = state.originText;
    return name;
  }

  /** Canonical spelling of the name token i (lowercased, absolute). */
  private nameText(lex: Lexer, state: State, i: number): string | undefined {
    const text = lex.text;
    const s = lex.starts[i]!;
    const e = lex.ends[i]!;
    // Fast path: letters, digits, -, _, * and dots only.
    if (!(lex.flags[i]! & TOKEN_ESCAPED)) {
      let plain = true;
      let labelLen = 0;
      let prevDot = true;
      for (let k = s; k < e; k++) {
        const c = text.charCodeAt(k);
        if (c === 0x2e) {
          if (prevDot && !(k === s && e - s === 1)) {
            plain = false;
            break;
          }
          prevDot = true;
          labelLen = 0;
          continue;
        }
        prevDot = false;
        if (
          !(
            (c >= 0x61 && c <= 0x7a) ||
            (c >= 0x41 && c <= 0x5a) ||
            (c >= 0x30 && c <= 0x39) ||
            c === 0x2d ||
            c === 0x5f ||
            c === 0x2a
          ) ||
          ++labelLen > 63
        ) {
          plain = false;
          break;
        }
      }
      if (plain) {
        const absolute = text.charCodeAt(e - 1) === 0x2e;
        if (!absolute && state.originText === undefined) {
          this.tokDiag(lex, i, 'ZONE_NO_ORIGIN', NO_ORIGIN);
          return undefined;
        }
        const suffix = absolute || state.originText === '.' ? '' : state.originText!;
        const len = e - s + (absolute ? 0 : 1) + suffix.length;
        // Wire length = presentation length + 1 (root label), except the root itself.
        if (len + 1 > 255 && !(len === 1 && absolute)) {
          this.tokDiag(lex, i, 'ZONE_NAME_TOO_LONG', NAME_ERROR_MESSAGES.ZONE_NAME_TOO_LONG);
          return undefined;
        }
        // One flat string of its own: a slice or a concatenation would keep the
        // whole block of file text alive for as long as the zone lives.
        const codes = this.nameCodes;
        let k = 0;
        for (let j = s; j < e; j++) {
          const c = text.charCodeAt(j);
          codes[k++] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
        }
        if (!absolute) codes[k++] = 0x2e;
        for (let j = 0; j < suffix.length; j++) codes[k++] = suffix.charCodeAt(j);
        return String.fromCharCode.apply(null, codes.subarray(0, k) as unknown as number[]);
      }
    }
    if (this.wireName(lex, state, i, NO_ORIGIN) === undefined) return undefined;
    return nameToText(this.nameBuf, 0, true);
  }

  private classCode(text: string, s: number, e: number): number {
    const len = e - s;
    if (len === 2) {
      if ((text.charCodeAt(s) | 0x20) === 0x69 && (text.charCodeAt(s + 1) | 0x20) === 0x6e)
        return 1; // IN
      return CLASS_CODES.get(text.slice(s, e).toUpperCase()) ?? -1;
    }
    if (len > 5 && text.slice(s, s + 5).toUpperCase() === 'CLASS')
      return parseUint(text, s + 5, e, 65535);
    return -1;
  }

  /** Type code of a mnemonic or TYPEnnn; -1 unknown, -2 out of range. */
  private typeCode(text: string, s: number, e: number): number {
    const len = e - s;
    // NAPTR fast path (the bulk of LEX routing zones).
    if (
      len === 5 &&
      (text.charCodeAt(s) | 0x20) === 0x6e &&
      (text.charCodeAt(s + 1) | 0x20) === 0x61 &&
      (text.charCodeAt(s + 2) | 0x20) === 0x70 &&
      (text.charCodeAt(s + 3) | 0x20) === 0x74 &&
      (text.charCodeAt(s + 4) | 0x20) === 0x72
    )
      return 35;
    const up = text.slice(s, e).toUpperCase();
    const known = TYPE_CODES.get(up);
    if (known !== undefined) return known;
    return len > 4 && up.startsWith('TYPE') ? parseUint(text, s + 4, e, 65535) : -1;
  }

  /** Token `t` as a TTL, or -1 after reporting why it is not one. */
  private ttlToken(lex: Lexer, t: number): number {
    const v = parseTtl(lex.text, lex.starts[t]!, lex.ends[t]!);
    if (v >= 0) return v;
    const why =
      v === -2 ? 'TTL larger than 4294967295' : 'malformed TTL (seconds, or units like 1h30m)';
    this.tokDiag(lex, t, 'ZONE_BAD_TTL', why);
    return -1;
  }

  /**
   * The domain name of token `index`, lowercased, in wire form in `nameBuf`:
   * its length, or undefined after reporting why it is not one.
   */
  private wireName(lex: Lexer, state: State, index: number, relative: string): number | undefined {
    const { text, starts, ends } = lex;
    const r = encodeName(text, starts[index]!, ends[index]!, state.origin, this.nameBuf, 0, true);
    if (typeof r === 'number') return r;
    if (r === 'RELATIVE') this.tokDiag(lex, index, 'ZONE_NO_ORIGIN', relative);
    else this.tokDiag(lex, index, r, NAME_ERROR_MESSAGES[r]);
    return undefined;
  }

  /** True when the directive has `min` to `max` tokens (its name included), else reported. */
  private arity(lex: Lexer, min: number, max: number, message: string): boolean {
    if (lex.count >= min && lex.count <= max) return true;
    this.tokDiag(lex, lex.count < min ? -1 : max, 'ZONE_BAD_DIRECTIVE', message);
    return false;
  }

  private directive(lex: Lexer, state: State): void {
    const name = lex.token(0).toUpperCase();
    switch (name) {
      case '$ORIGIN': {
        if (!this.arity(lex, 2, 2, '$ORIGIN takes exactly one domain name')) return;
        const r = this.wireName(lex, state, 1, 'relative $ORIGIN but no origin is known');
        if (r === undefined) return;
        state.origin = this.nameBuf.slice(0, r);
        state.originText = nameToText(state.origin, 0, true);
        state.originChanged = true;
        if (this.firstOrigin === undefined) this.firstOrigin = state.originText;
        return;
      }
      case '$TTL': {
        if (!this.arity(lex, 2, 2, '$TTL takes exactly one TTL')) return;
        const v = this.ttlToken(lex, 1);
        if (v >= 0) state.defaultTtl = v;
        return;
      }
      case '$INCLUDE': {
        this.include(lex, state);
        return;
      }
      default:
        this.tokDiag(
          lex,
          0,
          name === '$GENERATE' ? 'ZONE_UNSUPPORTED_DIRECTIVE' : 'ZONE_UNKNOWN_DIRECTIVE',
          name === '$GENERATE'
            ? '$GENERATE is a BIND extension and is not supported: write the records out'
            : `unknown directive ${printable(lex.token(0))} (RFC 1035 has $ORIGIN and $INCLUDE, RFC 2308 $TTL)`,
        );
    }
  }

  /** `$INCLUDE <file> [<origin>]` (RFC 1035 section 5.1); the includer's origin and $TTL are restored after. */
  private include(lex: Lexer, state: State): void {
    if (!this.arity(lex, 2, 3, '$INCLUDE takes a file name and an optional origin')) return;
    const source = this.options.includeSource;
    if (!source) {
      this.tokDiag(
        lex,
        0,
        'ZONE_INCLUDE_DISABLED',
        '$INCLUDE is disabled (no file source given to the parser)',
      );
      return;
    }
    if (state.depth >= this.maxDepth) {
      this.tokDiag(
        lex,
        1,
        'ZONE_INCLUDE_DEPTH',
        `$INCLUDE nested deeper than ${this.maxDepth} files`,
      );
      return;
    }
    const fileName = unescapeToken(lex.token(1));
    let origin = state.origin;
    let originText = state.originText;
    if (lex.count === 3) {
      const r = this.wireName(lex, state, 2, 'relative $INCLUDE origin but no origin is known');
      if (r === undefined) return;
      origin = this.nameBuf.slice(0, r);
      originText = nameToText(origin, 0, true);
    }
    const slash = state.file.lastIndexOf('/');
    const resolved =
      fileName.startsWith('/') || slash < 0 ? fileName : state.file.slice(0, slash + 1) + fileName;
    let content: string | undefined;
    try {
      content = source(resolved, state.file);
    } catch (e) {
      // A file source may name its refusal (ZONE_INCLUDE_OUTSIDE, ZONE_NOT_REGULAR_FILE, ...).
      const code = (e as { code?: unknown } | null)?.code;
      this.tokDiag(
        lex,
        1,
        isZoneCode(code) ? code : 'ZONE_INCLUDE_NOT_FOUND',
        `cannot read ${printable(fileName)}: ${e instanceof Error ? e.message : String(e)}`,
      );
      return;
    }
    if (content === undefined) {
      this.tokDiag(lex, 1, 'ZONE_INCLUDE_NOT_FOUND', `cannot read included file ${fileName}`);
      return;
    }
    const child: State = {
      ...state,
      file: resolved,
      origin,
      originText,
      depth: state.depth + 1,
    };
    this.lexPiece(content, 1, true, child);
    // The owner carries on (BIND and Knot); origin and $TTL are restored.
    state.lastOwner = child.lastOwner;
    state.lastOwnerRaw = undefined;
    state.lastTtl = child.lastTtl;
  }
}

/**
 * Text safe to show on a terminal: control characters (C0, DEL, C1) written
 * as `\DDD`, as in a zone file.
 */
export function printable(t: string): string {
  return t.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => '\\' + String(c.charCodeAt(0)).padStart(3, '0'),
  );
}

/** A token's text with `\X` and `\DDD` escapes resolved (file names). */
function unescapeToken(t: string): string {
  if (t.indexOf('\\') < 0) return t;
  let out = '';
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (c !== '\\' || i + 1 >= t.length) {
      out += c;
      continue;
    }
    const digits = t.slice(i + 1, i + 4);
    if (/^[0-9]{3}$/.test(digits)) {
      out += String.fromCharCode(Number(digits));
      i += 3;
    } else {
      out += t[i + 1];
      i++;
    }
  }
  return out;
}
