#!/usr/bin/env bash
# Zone signing: `lexroute zone sign` against `dnssec-signzone` on the same
# generated LEX routing zone (RECORDS NAPTR records, two per jurisdiction
# key), the same algorithm (ECDSAP256SHA256, a KSK and a ZSK made by
# dnssec-keygen) and the same NSEC3 parameters (RFC 9276: no salt, 0
# iterations). Wall time, CPU time and peak RSS of each (GNU time), and the
# ratios lexroute / dnssec-signzone (target <= 1.0 for time). dnssec-signzone
# runs with its default worker threads (one per core).
#
#   bench/zone-sign.sh                    # 1,000,000 records
#   RECORDS=100000 bench/zone-sign.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-1000000}
NODE=${NODE:-node_modules/.bin/node}
for t in dnssec-keygen dnssec-signzone /usr/bin/time; do
  command -v "$t" >/dev/null 2>&1 || { echo "$t is required (apt-get install bind9-utils time)" >&2; exit 1; }
done
TMP=$(mktemp -d /tmp/lexroute-zone-sign.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

ZONE=$TMP/lex.bench.zone
awk -v n="$RECORDS" 'BEGIN {
  print "$ORIGIN lex.bench."; print "$TTL 3600";
  print "@ IN SOA ns1 hostmaster 1 7200 3600 1209600 300"; print "@ IN NS ns1"; print "ns1 IN A 192.0.2.1";
  for (i = 0; i < n / 2; i++) {
    printf "j%d IN NAPTR 100 10 \"\" \"\" \"!^urn:lex:j%d;([a-z0-9.-]+)[;:].*$!\\\\1.j%d.lex.bench!i\" .\n", i, i, i;
    printf "j%d IN NAPTR 200 10 \"u\" \"http+N2L\" \"!^(.*)$!https://j%d.resolver.example/uri-res/N2L?\\\\1!\" .\n", i, i;
  }
}' >"$ZONE"
mkdir "$TMP/keys"
dnssec-keygen -q -K "$TMP/keys" -a ECDSAP256SHA256 -f KSK -n ZONE lex.bench >/dev/null
dnssec-keygen -q -K "$TMP/keys" -a ECDSAP256SHA256 -n ZONE lex.bench >/dev/null

run() { # name, command...
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$TMP/$name.time" "$@" >"$TMP/$name.out" 2>&1 || { cat "$TMP/$name.out" >&2; exit 1; }
  read -r wall user sys rss <"$TMP/$name.time"
  printf '%-16s wall %8.1f s  cpu %8.1f s  peak RSS %8.0f MB\n' "$name" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}')" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
  eval "W_$name=$wall; C_$name=$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}'); M_$name=$rss"
}
echo "zone-sign: $RECORDS NAPTR records, ECDSAP256SHA256 KSK+ZSK, NSEC3 (no salt, 0 iterations)"
run bind dnssec-signzone -q -K "$TMP/keys" -d "$TMP" -o lex.bench -S -3 - -H 0 -f "$TMP/bind.signed" "$ZONE"
run lexroute "$NODE" bin/lexroute.js zone sign "$ZONE" --keys "$TMP/keys" --nsec3 -o "$TMP/lexroute.signed"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo "lexroute / dnssec-signzone: wall $(ratio "$W_lexroute" "$W_bind")  cpu $(ratio "$C_lexroute" "$C_bind")  peak RSS $(ratio "$M_lexroute" "$M_bind")  (target <= 1.0 wall)"
