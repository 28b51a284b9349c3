#!/usr/bin/env bash
# Zone signing: `lexroute zone sign` against `dnssec-signzone` on the same
# generated LEX routing zone (RECORDS NAPTR records, two per jurisdiction
# key), the same algorithm (ECDSAP256SHA256, a KSK and a ZSK made by
# dnssec-keygen) and the same NSEC3 parameters (RFC 9276: no salt, 0
# iterations). Wall time, CPU time and peak RSS of each (GNU time), and the
# ratios lexroute / dnssec-signzone (target <= 1.0 for time). dnssec-signzone
# runs with its default worker threads (one per core), and so does lexroute
# (signing threads, `zone sign --threads`). With VERIFY=1 (default)
# dnssec-verify and ldns-verify-zone then check lexroute's output. ldns-signzone (one
# thread) signs the same file with the same keys as a second baseline when it
# is installed (ldnsutils). Then `lexroute serve --keys` on the unsigned file:
# the time from start to the first signed answer (load and inline signing in
# the zone-load worker) next to the same server on the unsigned file, and the
# server's peak RSS (VmHWM) by then against dnssec-signzone's (issue 30:
# first inline signing within 1.5x its memory).
#
#   bench/zone-sign.sh                    # 1,000,000 records
#   RECORDS=100000 bench/zone-sign.sh
#   VERIFY=0 bench/zone-sign.sh           # without the verification of the output
#   LDNS=0 UNSIGNED=0 bench/zone-sign.sh  # without ldns-signzone, without the unsigned server
#   ADDR=127.0.0.9 PORT=5300 bench/zone-sign.sh  # where the servers listen
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
if [ "${VERIFY:-1}" = 1 ]; then
  if command -v dnssec-verify >/dev/null 2>&1; then
    dnssec-verify -q -o lex.bench. "$TMP/lexroute.signed" >"$TMP/verify.out" 2>&1 \
      && echo "dnssec-verify accepts lexroute's output" \
      || { echo "dnssec-verify REJECTS lexroute's output:" >&2; tail -5 "$TMP/verify.out" >&2; exit 1; }
  fi
  if command -v ldns-verify-zone >/dev/null 2>&1; then
    ldns-verify-zone "$TMP/lexroute.signed" >"$TMP/ldns-verify.out" 2>&1 \
      && echo "ldns-verify-zone accepts lexroute's output" \
      || { echo "ldns-verify-zone REJECTS lexroute's output:" >&2; tail -5 "$TMP/ldns-verify.out" >&2; exit 1; }
  fi
fi
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
HAVE_LDNS=0
if [ "${LDNS:-1}" = 1 ] && command -v ldns-signzone >/dev/null 2>&1; then
  HAVE_LDNS=1
  KEYS=$(ls "$TMP"/keys/*.private | sed 's/\.private$//')
  # shellcheck disable=SC2086
  run ldns ldns-signzone -n -s '' -t 0 -f "$TMP/ldns.signed" -o lex.bench. "$ZONE" $KEYS
fi
echo "lexroute / dnssec-signzone: wall $(ratio "$W_lexroute" "$W_bind")  cpu $(ratio "$C_lexroute" "$C_bind")  peak RSS $(ratio "$M_lexroute" "$M_bind")  (target <= 1.0 wall)"
if [ "$HAVE_LDNS" = 1 ]; then
  echo "lexroute / ldns-signzone:   wall $(ratio "$W_lexroute" "$W_ldns")  cpu $(ratio "$C_lexroute" "$C_ldns")  peak RSS $(ratio "$M_lexroute" "$M_ldns")"
fi

# Inline signing: start to the first signed answer, against the same server on the unsigned file.
PORT=${PORT:-5397}
ADDR=${ADDR:-127.0.0.1}
first_answer() { # name, extra serve options...
  local name=$1; shift
  local t0 t1 pid
  t0=$(date +%s.%N)
  "$NODE" bin/lexroute.js serve --zones "$ZONE" --listen "$ADDR:$PORT" --log-level warn "$@" &
  pid=$!
  until dig +time=1 +tries=1 +dnssec @"$ADDR" -p "$PORT" j1.lex.bench NAPTR 2>/dev/null | grep -q 'status: NOERROR'; do
    kill -0 "$pid" 2>/dev/null || { echo "serve stopped" >&2; exit 1; }
    sleep 0.2
  done
  t1=$(date +%s.%N)
  if [ "$name" = inline ]; then
    dig +dnssec @"$ADDR" -p "$PORT" j1.lex.bench NAPTR | grep -q 'RRSIG' || { echo "no RRSIG in the inline-signed answer" >&2; exit 1; }
  fi
  local rss
  rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  printf '%-16s first answer after %8.1f s  peak RSS %8.0f MB\n' "serve-$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
  eval "S_$name=$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}'); R_$name=$rss"
}
if command -v dig >/dev/null 2>&1; then
  if [ "${UNSIGNED:-1}" = 1 ]; then first_answer unsigned; fi
  first_answer inline --keys "$TMP/keys" --nsec3
  if [ "${UNSIGNED:-1}" = 1 ]; then
    echo "serve --keys / serve (unsigned): time to the first answer $(ratio "$S_inline" "$S_unsigned")"
  fi
  echo "serve --keys first signing / dnssec-signzone: peak RSS $(ratio "$R_inline" "$M_bind")  (target <= 1.5)"
fi
