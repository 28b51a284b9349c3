/** The help text of `lexroute catalogue`. */
import { DEFAULT_RESOLVER_CONFIG } from '../../config/resolver.ts';

export const CATALOGUE_HELP = `Usage: lexroute catalogue import <file> [options]
       lexroute catalogue export [options]
       lexroute catalogue registry <folder> [options]
       lexroute catalogue migrate [options]

Manage the jurisdiction resolver's catalogue: one SQLite file, or a
PostgreSQL database (--catalogue postgres://user@host:port/db).

import   add the rows of a JSON Lines (.jsonl) or CSV (.csv) file, streamed
         in batches of 20,000 (COPY into PostgreSQL), all in one transaction:
         resolvers see the catalogue as it was until the whole file is in, and
         an import that is interrupted or killed leaves it as it was. Each bad
         row is reported with its line number and code and skipped. A terminal
         shows rows, rows/s, rejected rows and the ETA. Importing the same
         file again adds nothing and loses nothing. Exit 1 when any row was
         rejected or the import was interrupted.
export   write every row (one per item) to standard output or --output, in a
         form import reads back.
registry store the registries for normalisation (jurisdictions, authorities,
         measure types) read from a folder of LexML vocabularies
         (localidade.csv, autoridade.csv, tipoDocumento.csv, as published),
         replacing those stored before; the resolver rewrites acronyms and
         alternative labels through them (see lexroute resolver --help).
migrate  bring the catalogue's schema up to this lexroute's version (import
         and registry do so too; the resolver only reads the current schema
         and says what to run).

Options:
  --catalogue LOC    a SQLite file or a postgres:// URL (default:
                     ${DEFAULT_RESOLVER_CONFIG.catalogue}; import and migrate create it)
  --format FORMAT    jsonl | csv (import: default from the file extension;
                     export: default jsonl)
  --output FILE      export: write here instead of standard output
  --json             import: print the report as one JSON object on standard
                     output (ok, rows, imported, rejected, newWorks, newItems,
                     unchangedItems, aborted, seconds, catalogue counts, and
                     errors[]: line, code, field, column, message; at most
                     10,000 listed, errorsNotListed counts the rest) instead
                     of the text lines; a failure is {"ok": false, "errors":
                     [{code, message}]}
  -h, --help         show this help

Exit codes: 0 success, 1 failure (CATALOGUE_OPEN, CATALOGUE_MISSING,
CATALOGUE_SCHEMA, IMPORT_UNREADABLE, CSV_BAD_HEADER, or rejected rows), 2 usage error.

Row fields (JSON Lines keys; CSV header columns in brackets):
  urn (urn)            required; a LEX URN of a work, an @expression or a
                       $manifestation, e.g.
                       urn:lex:br:federal:lei:2002-01-10;10406@2024-06-28:pt$planalto.gov.br:text-html
  url (url)            an http(s) URL of an item of that manifestation
  priority (priority)  integer 0-65535, lower first (default 10)
  inForce (in_force)   YYYY-MM-DD: when this version came into force
  partitionDepth (partition_depth)
                       0-32: how many ';' levels of partition IDs the
                       manifestation's markup has anchors for ($manifestation
                       rows only): ~art15;par3 gives #art15 at 1 and no
                       fragment at 0; absent: the whole partition
  title (title)        the work's title
  aliases (aliases)    other names of the work: a JSON array, or URNs
                       separated by spaces (CSV)
Example JSON Lines row:
  {"urn":"urn:lex:it:stato:legge:2000-04-03;56$senato.it:text-xml","url":"https://www.senato.it/leggi/2000/00056.xml","priority":10}
Example CSV:
  urn,url,priority,in_force,title,aliases,partition_depth
  urn:lex:it:stato:legge:2000-04-03;56$senato.it:text-xml,https://www.senato.it/leggi/2000/00056.xml,10,,,,1
`;
