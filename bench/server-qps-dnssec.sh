#!/usr/bin/env bash
# Signed-zone throughput: queries/s with DO set (dnsperf -D) against the same
# LEX routing zone unsigned and signed (dnssec-signzone, ECDSAP256SHA256,
# NSEC3 with the RFC 9276 parameters), served by lexroute, and BIND 9 serving
# the signed zone, and lexroute signing the unsigned zone itself at load
# (`serve --keys`, inline signing with the same keys, NSEC3); servers
# pinned to one core with taskset, dnsperf on
# another, measured in turn. Prints queries/s and the ratios
# (signed / unsigned target >= 0.9). The zone and query mix are those of
# bench/server-qps.sh (40% apex NAPTR, 40% jurisdiction NAPTR, 10% NXDOMAIN,
# 10% NODATA): the negative answers carry NSEC3 proofs when signed.
#
#   bench/server-qps-dnssec.sh                # 10 s per server
#   DURATION=5 ROUNDS=3 bench/server-qps-dnssec.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-5398}
NAMES=${NAMES:-300}
NODE=${NODE:-node_modules/.bin/node}
ROUNDS=${ROUNDS:-1}

for t in dnsperf named dnssec-keygen dnssec-signzone; do
  command -v "$t" >/dev/null 2>&1 || { echo "$t is required (apt-get install dnsperf bind9 bind9-utils)" >&2; exit 1; }
done
NAMED=$(command -v named)
[ -x "$NODE" ] || { echo "run npm ci first ($NODE missing)" >&2; exit 1; }

. bench/lex-bench.sh
bench_scratch qps-dnssec

mkdir -p "$TMP/unsigned" "$TMP/signed" "$TMP/keys"
ZONE=$TMP/unsigned/lex.bench.zone
bench_zone "$ZONE" "$NAMES"
dnssec-keygen -q -K "$TMP/keys" -a ECDSAP256SHA256 -f KSK -n ZONE lex.bench >/dev/null
dnssec-keygen -q -K "$TMP/keys" -a ECDSAP256SHA256 -n ZONE lex.bench >/dev/null
SIGNED=$TMP/signed/lex.bench.zone
dnssec-signzone -q -K "$TMP/keys" -d "$TMP" -o lex.bench -S -3 - -H 0 -f "$SIGNED" "$ZONE" >/dev/null
chmod -R a+rX "$TMP"

QUERIES=$TMP/queries.txt
bench_queries "$QUERIES" "$NAMES"

wait_port() {
  for _ in $(seq 1 100); do
    if dig +time=1 +tries=1 @127.0.0.1 -p "$PORT" lex.bench SOA >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "server did not come up" >&2
  return 1
}

declare -A QPS
measure() {
  local name=$1 out qps
  out=$(taskset -c "$CLIENT_CPU" dnsperf -D -s 127.0.0.1 -p "$PORT" -d "$QUERIES" -l "$DURATION" -c 4 -q 100 2>&1)
  qps=$(echo "$out" | awk '/Queries per second:/ {print $4}')
  printf '  round %s %-18s %10s qps (DO set)\n' "$ROUND" "$name" "$qps" >&2
  if [ -z "${QPS[$name]:-}" ] || awk -v a="$qps" -v b="${QPS[$name]}" 'BEGIN { exit !(a > b) }'; then QPS[$name]=$qps; fi
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  sleep 1
}

lexroute() { # zone file, extra options...
  local zone=$1; shift
  taskset -c "$SERVER_CPU" "$NODE" bin/lexroute.js serve --zones "$zone" --listen "127.0.0.1:$PORT" --log-level warn "$@" &
  PID=$!
  wait_port
}

echo "server-qps-dnssec: ${DURATION}s per server, $ROUNDS round(s), $NAMES jurisdiction names, port $PORT" >&2
for ROUND in $(seq 1 "$ROUNDS"); do
  lexroute "$ZONE"; measure lexroute-unsigned
  lexroute "$SIGNED"; measure lexroute-signed
  lexroute "$ZONE" --keys "$TMP/keys" --nsec3; measure lexroute-inline
  cat >"$TMP/named.conf" <<CONF
options {
  directory "$TMP";
  pid-file none;
  listen-on port $PORT { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
  minimal-responses no-auth;
  session-keyfile "$TMP/session.key";
  managed-keys-directory "$TMP";
};
zone "lex.bench" { type primary; file "$SIGNED"; };
CONF
  chmod 777 "$TMP"
  USERARG=()
  if [ "$(id -u)" = 0 ]; then USERARG=(-u nobody); fi
  taskset -c "$SERVER_CPU" "$NAMED" -g -n 1 -c "$TMP/named.conf" "${USERARG[@]}" 2>"$TMP/named.log" &
  PID=$!
  wait_port || { cat "$TMP/named.log" >&2; exit 1; }
  measure bind-signed
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo
printf '%-30s %14s\n' "server (DO set)" "queries/s"
printf '%-30s %14s\n' "lexroute, unsigned zone" "${QPS[lexroute-unsigned]}"
printf '%-30s %14s\n' "lexroute, signed zone" "${QPS[lexroute-signed]}"
printf '%-30s %14s\n' "lexroute, signed inline" "${QPS[lexroute-inline]}"
printf '%-30s %14s\n' "BIND 9 (named -n 1), signed" "${QPS[bind-signed]}"
echo
echo "lexroute signed / unsigned:  $(ratio "${QPS[lexroute-signed]}" "${QPS[lexroute-unsigned]}")   (target >= 0.9)"
echo "lexroute inline / unsigned:  $(ratio "${QPS[lexroute-inline]}" "${QPS[lexroute-unsigned]}")"
echo "lexroute signed / BIND:      $(ratio "${QPS[lexroute-signed]}" "${QPS[bind-signed]}")"
