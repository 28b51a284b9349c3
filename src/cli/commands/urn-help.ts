/** The help texts of `lexroute urn` and its subcommands. */

export const MAIN_HELP = `Usage: lexroute urn <subcommand> [options]

Parse, normalize and convert LEX URNs (RFC 9676 on RFC 8141).

Subcommands:
  parse <urn>       show the parts (jurisdiction, work, expression,
                    manifestation, partition) as a tree, or the errors
  normalize <urn>   print the canonical form and the rules that changed it
  key <text>        convert text with percent-encoded UTF-8 to a DNS key
                    (absolute name of A-labels, IDNA2008 + Punycode)

Options:
  -h, --help        show this help (also: lexroute urn <subcommand> --help)

With --json every subcommand prints { "ok": true, ... } or { "ok": false,
"errors": [{ "code", "message", "severity", "span": { "start", "end" } }] };
spans are zero-based offsets (UTF-16 code units, end exclusive). Messages on
standard error give the one-based column ("24: CODE ...").

Exit codes: 0 valid, 1 invalid, 2 usage error.
`;

export const PARSE_HELP = `Usage: lexroute urn parse <urn> [--json]

Parse a LEX URN (RFC 9676 section 8) and show its parts as a tree.
Errors are printed as "column: CODE message" with a caret under the position.

Options:
  --json      print the parse result (tree with spans, or errors) as JSON
  -h, --help  show this help

Exit codes: 0 valid (warnings are printed but do not fail), 1 invalid, 2 usage error.
`;

export const NORMALIZE_HELP = `Usage: lexroute urn normalize <urn> [--json] [--registry DIR]

Print the canonical form of a LEX URN: "urn" and the NID in lower case, the
name case-folded (RFC 9676 section 3.3, also percent-encoded non-ASCII text),
%hh hex in upper case, a raw "|" date separator as %7C. Raw non-ASCII text
(münchen) is accepted and percent-encoded as UTF-8 first (m%C3%BCnchen). The rules that
changed the input are listed on standard error.

With --registry, the jurisdiction, authority and measure are then rewritten
through the registries as the resolver does before matching (RFC 9676
section 10.3): an acronym or alternative label becomes its canonical code
where exactly one entry has it (urn:lex:br:stf:... -> supremo.tribunal.federal);
a value several entries share is reported as ambiguous and kept.

Options:
  --json            print { ok, canonical, changes[, registry] } or { ok, errors } as JSON
  --registry DIR    a folder with the LexML vocabularies (localidade.csv,
                    autoridade.csv, tipoDocumento.csv)
  -h, --help        show this help

Exit codes: 0 valid, 1 invalid, 2 usage error.
`;

export const KEY_HELP = `Usage: lexroute urn key <text> [--json]

Convert text (for example a DDDS rewrite result) with percent-encoded or raw
UTF-8 to a DNS key: percent-decode %80-%FF only (encoded ASCII such as %2E is
rejected), split on ".", lowercase, check IDNA2008 lookup rules, Punycode,
63-octet labels and 253-character names. Prints the absolute name.

Options:
  --json      print { ok, value } or { ok, errors } as JSON
  -h, --help  show this help

Exit codes: 0 converted, 1 rejected, 2 usage error.
`;
