/**
 * A catalog zone read by its consumer (RFC 9432, schema version 2), the pure
 * part: `version` TXT "2", member nodes `<id>.zones` PTR, their `group` TXT
 * (section 5.2, reported) and `coo` PTR (section 5.3); other properties are
 * counted, not acted on (section 4.4). A broken version property or `coo`
 * stops the whole version (section 5.3); a broken member entry keeps that
 * member as it was. Also the plan from one version's members to the next.
 */
import { keyIsSubdomain, keyToName, nameKey, wireToKey } from '../../dns/core/wire/name.ts';
import { TYPE_PTR, TYPE_TXT } from '../../dns/core/rr/types.ts';
import type { CatalogInCode } from './codes.ts';

/** One record of the catalog zone: owner key (`nameKey`), type, RDATA. */
export interface CatalogRecord {
  readonly key: string;
  readonly type: number;
  readonly rdata: Uint8Array;
}

/** What keeps a catalog version or a member from being applied; `owner` is the name it was read at. */
export interface CatalogProblem {
  readonly code: CatalogInCode;
  readonly owner: string;
  readonly message: string;
}

export interface CatalogRead {
  /** Member zones (absolute, lowercase) to their unique ID; undefined when the version is not applied. */
  readonly members: ReadonlyMap<string, string> | undefined;
  /** Member names and IDs whose entries are broken: those members stay as they were. */
  readonly keepNames: ReadonlySet<string>;
  readonly keepIds: ReadonlySet<string>;
  /** Each member's `group` property values (members without one are absent). */
  readonly groups: ReadonlyMap<string, readonly string[]>;
  /** Each member's `coo` property: the catalog it may move to (absolute, lowercase). */
  readonly coo: ReadonlyMap<string, string>;
  /** Properties read but not acted on (`ext`, unknown ones), counted by name. */
  readonly ignored: Readonly<Record<string, number>>;
  readonly problems: readonly CatalogProblem[];
}

/** The labels of `key` above `suffix` (a subdomain of it), leftmost first. */
function labelsAbove(key: string, suffix: string): string[] {
  const out: string[] = [];
  let i = 0;
  const end = key.length - suffix.length;
  while (i < end) {
    const len = key.charCodeAt(i);
    out.push(key.slice(i + 1, i + 1 + len));
    i += 1 + len;
  }
  return out;
}

const HOST_LABEL = /^[a-z0-9_-]{1,63}$/;

/** The name key of a PTR's RDATA, or why it is not one uncompressed domain name. */
function ptrKey(rdata: Uint8Array): string | { why: string } {
  let i = 0;
  while (i < rdata.length && rdata[i] !== 0) {
    if (rdata[i]! > 63) return { why: 'its RDATA is not an uncompressed domain name' };
    i += 1 + rdata[i]!;
  }
  if (i !== rdata.length - 1 || rdata.length > 255)
    return { why: 'its RDATA is not one domain name' };
  return wireToKey(rdata);
}

/** The member zone a PTR names (letters, digits, `-`, `_`: it becomes a file name), or why not. */
function memberName(rdata: Uint8Array, catalogKey: string): string | { why: string } {
  const key = ptrKey(rdata);
  if (typeof key !== 'string') return key;
  if (key.length === 1) return { why: 'it names the root' };
  if (keyIsSubdomain(key, catalogKey)) return { why: 'it names the catalog zone or a name in it' };
  const name = keyToName(key);
  const labels = name.slice(0, -1).split('.');
  if (!labels.every((l) => HOST_LABEL.test(l)))
    return { why: `${name} holds characters other than letters, digits, - and _` };
  return name;
}

/** The version property: undefined when it is one TXT "2", else the problem. */
function versionProblem(txt: readonly Uint8Array[], owner: string): CatalogProblem | undefined {
  if (txt.length === 0)
    return {
      code: 'CATALOG_NO_VERSION',
      owner,
      message: `no TXT record at ${owner}: the catalog's schema version is unknown (RFC 9432 section 4.2.1)`,
    };
  const one = txt.length === 1 ? txt[0]! : undefined;
  if (one?.length === 2 && one[0] === 1 && one[1] === 0x32) return undefined;
  const shown = txt.map((t) => JSON.stringify(new TextDecoder().decode(t.subarray(1)))).join(', ');
  return {
    code: 'CATALOG_VERSION',
    owner,
    message: `the version property is ${shown}; lexroute consumes schema version "2" only, in one TXT record`,
  };
}

/** The records of one member property (`group` TXT, `coo` PTR), by member node ID. */
type PropertyRecords = Map<string, Uint8Array[]>;

/** The PTR records of each member node and the properties, from the catalog's records. */
function gather(catalogKey: string, records: Iterable<CatalogRecord>) {
  const version: Uint8Array[] = [];
  const nodes = new Map<string, Uint8Array[]>();
  const group: PropertyRecords = new Map();
  const coo: PropertyRecords = new Map();
  const ignored: Record<string, number> = {};
  const take = (to: PropertyRecords, id: string, rdata: Uint8Array) =>
    to.set(id, [...(to.get(id) ?? []), rdata]);
  for (const r of records) {
    if (!keyIsSubdomain(r.key, catalogKey) || r.key === catalogKey) continue;
    const labels = labelsAbove(r.key, catalogKey);
    const top = labels[labels.length - 1]!;
    if (labels.length === 1 && top === 'version') {
      if (r.type === TYPE_TXT) version.push(r.rdata);
    } else if (labels.length === 2 && top === 'zones') {
      const ptrs = nodes.get(labels[0]!) ?? [];
      if (r.type === TYPE_PTR) ptrs.push(r.rdata);
      nodes.set(labels[0]!, ptrs);
    } else if (labels.length === 3 && top === 'zones' && labels[0] === 'group') {
      if (r.type === TYPE_TXT) take(group, labels[1]!, r.rdata);
    } else if (labels.length === 3 && top === 'zones' && labels[0] === 'coo') {
      if (r.type === TYPE_PTR) take(coo, labels[1]!, r.rdata);
    } else {
      // A member's property (ext, ...) is the label under its node; a global one is its own.
      const name = labels.length > 2 && top === 'zones' ? labels[labels.length - 3]! : top;
      ignored[name] = (ignored[name] ?? 0) + 1;
    }
  }
  return { version, nodes, group, coo, ignored };
}

/** A TXT record's character-strings, joined (one `group` value). */
function txtText(rdata: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < rdata.length; i += 1 + rdata[i]!)
    parts.push(new TextDecoder().decode(rdata.subarray(i + 1, i + 1 + rdata[i]!)));
  return parts.join('');
}

/** The members' `group` values and `coo` targets, or the problem of a broken `coo`. */
function memberProperties(
  catalog: string,
  members: ReadonlyMap<string, string>,
  group: PropertyRecords,
  coo: PropertyRecords,
) {
  const groups = new Map<string, string[]>();
  const moves = new Map<string, string>();
  for (const [name, id] of members) {
    const g = group.get(id);
    if (g !== undefined) groups.set(name, g.map(txtText));
    const c = coo.get(id);
    if (c === undefined) continue;
    const key = c.length === 1 ? ptrKey(c[0]!) : { why: `${c.length} PTR records, not one` };
    if (typeof key !== 'string' || key.length === 1) {
      const why = typeof key === 'string' ? 'it names the root' : key.why;
      const problem: CatalogProblem = {
        code: 'CATALOG_BAD_COO',
        owner: `coo.${keyToName(String.fromCharCode(id.length) + id)}zones.${catalog}`,
        message: `the change of ownership of ${name} is unusable: ${why} (RFC 9432 section 5.3: the catalog is broken)`,
      };
      return { groups, coo: moves, problem };
    }
    moves.set(name, keyToName(key));
  }
  return { groups, coo: moves, problem: undefined };
}

/** Read a catalog version from its records (RFC 9432 sections 4.2.1 and 4.3). */
export function readCatalog(catalog: string, records: Iterable<CatalogRecord>): CatalogRead {
  const catalogKey = nameKey(catalog);
  const { version, nodes, group, coo, ignored } = gather(catalogKey, records);
  const problems: CatalogProblem[] = [];
  const keepNames = new Set<string>();
  const keepIds = new Set<string>();
  const none = { keepNames, keepIds, groups: new Map(), coo: new Map(), ignored };
  const at = (id: string) => `${keyToName(String.fromCharCode(id.length) + id)}zones.${catalog}`;
  const bad = versionProblem(version, `version.${catalog}`);
  if (bad) return { ...none, members: undefined, problems: [bad] };
  const ids = new Map<string, string[]>();
  for (const [id, ptrs] of nodes) {
    const names = ptrs.map((p) => memberName(p, catalogKey));
    const ok = names.filter((n): n is string => typeof n === 'string');
    if (ptrs.length !== 1 || ok.length !== 1) {
      keepIds.add(id);
      for (const n of ok) keepNames.add(n);
      const why = names.find((n) => typeof n !== 'string')?.why;
      problems.push({
        code: 'CATALOG_BAD_PTR',
        owner: at(id),
        message:
          ptrs.length !== 1
            ? `the member node has ${ptrs.length} PTR records, not one (RFC 9432 section 4.3)`
            : `the member's PTR is unusable: ${why ?? ''}`,
      });
      continue;
    }
    ids.set(ok[0]!, [...(ids.get(ok[0]!) ?? []), id]);
  }
  const members = new Map<string, string>();
  for (const [name, list] of ids) {
    if (list.length === 1 && !keepNames.has(name)) members.set(name, list[0]!);
    else if (list.length > 1) {
      keepNames.add(name);
      problems.push({
        code: 'CATALOG_DUPLICATE_MEMBER',
        owner: at(list[1]!),
        message: `${name} is listed ${list.length} times (IDs ${list.join(', ')}): a member zone is listed once`,
      });
    }
  }
  const props = memberProperties(catalog, members, group, coo);
  if (props.problem) return { ...none, members: undefined, problems: [props.problem] };
  return { members, keepNames, keepIds, groups: props.groups, coo: props.coo, ignored, problems };
}

/** How the member zones provisioned from a catalog change with a new version. */
export interface CatalogPlan {
  /** The members after the change (name to ID). */
  readonly next: ReadonlyMap<string, string>;
  readonly add: readonly string[];
  readonly remove: readonly string[];
  /** Members whose ID changed: removed with their data and added again (RFC 9432 section 5.4). */
  readonly reset: readonly string[];
}

/** The change from the members provisioned (`before`) to those a version lists; none when it is not applied. */
export function planCatalog(before: ReadonlyMap<string, string>, read: CatalogRead): CatalogPlan {
  if (read.members === undefined) return { next: before, add: [], remove: [], reset: [] };
  const next = new Map(read.members);
  for (const [name, id] of before)
    if (!next.has(name) && (read.keepNames.has(name) || read.keepIds.has(id))) next.set(name, id);
  const add = [...next.keys()].filter((n) => !before.has(n));
  const remove = [...before.keys()].filter((n) => !next.has(n));
  const reset = [...next]
    .filter(([n, id]) => before.has(n) && before.get(n) !== id)
    .map(([n]) => n);
  return { next, add, remove, reset };
}
