#!/usr/bin/env bash
# Server throughput: lexroute vs BIND 9 (named -n 1), NSD (server-count 1),
# Knot DNS (udp-workers 1) and the Node ceiling (a dgram responder sending one
# pre-built packet), each pinned to one core with taskset, dnsperf on another
# core with the same query file, same loopback port, fixed duration. Also
# lexroute with RRL on (at a rate no query reaches) and with --workers 2
# (pinned to both cores, so it shares the client's core: this machine has
# two). Prints queries/s, lost queries, server CPU per query and the ratios.
#
#   bench/server-qps.sh                 # 20 s per server
#   DURATION=5 bench/server-qps.sh      # quicker
#   ROUNDS=3 bench/server-qps.sh        # servers in turn, 3 times; best round each
#   SERVER_CPU=0 CLIENT_CPU=1 PORT=5399 NAMES=500 bench/server-qps.sh
#   BASELINE=/tmp/old bench/server-qps.sh   # also lexroute from another checkout
#                                           # (git archive REV | tar -x -C DIR, node_modules
#                                           # linked), with and without RRL, in each round
#   ONLY=lexroute,baseline ROUNDS=7 BASELINE=/tmp/old bench/server-qps.sh
#                                       # only those servers (names as in the round lines:
#                                       # lexroute baseline baseline-rrl bind lexroute-rrl
#                                       # lexroute-w2 nsd knot ceiling)
#
# On a shared machine other load lowers every figure; the ratios of one run
# (servers measured in turn, several rounds) are what to compare.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-20}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-5399}
NAMES=${NAMES:-300}
NODE=${NODE:-node_modules/.bin/node}
ROUNDS=${ROUNDS:-1}
BASELINE=${BASELINE:-}
# Second figure, robust on a shared machine: server CPU time per query at a fixed rate.
RATE=${RATE:-10000}
RATE_SECONDS=${RATE_SECONDS:-5}
ONLY=${ONLY:-}
# Whether server $1 is measured (all unless ONLY lists some).
want() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

need() { command -v "$1" >/dev/null 2>&1; }
if ! need dnsperf || ! need named; then
  if [ "$(id -u)" = 0 ] && need apt-get; then
    echo "installing dnsperf and bind9 ..." >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dnsperf bind9 >/dev/null
  else
    echo "dnsperf and named are required (apt-get install dnsperf bind9)" >&2
    exit 1
  fi
fi
NAMED=$(command -v named)
[ -x "$NODE" ] || { echo "run npm ci first ($NODE missing)" >&2; exit 1; }

. bench/lex-bench.sh
bench_scratch qps

# ---- the zone and the queries (bench/lex-bench.sh)
ZONE=$TMP/lex.bench.zone
bench_zone "$ZONE" "$NAMES"
named-checkzone -q lex.bench "$ZONE"
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
wait_ceiling() {
  for _ in $(seq 1 100); do
    if dig +time=1 +tries=1 @127.0.0.1 -p "$PORT" lex.bench NAPTR 2>/dev/null | grep -q NOERROR; then return 0; fi
    sleep 0.1
  done
  return 1
}

declare -A QPS LOST CPU ROUNDS_CPU ROUNDS_QPS
# CPU time (ns, from the scheduler: /proc/PID/task/*/schedstat) of a process's
# threads and all its descendants' (NSD answers from a grandchild). utime/stime
# are sampled at clock ticks and miss servers that run in short bursts.
cpuns() {
  local t p
  t=$(cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f", s}')
  for p in $(pgrep -P "$1" 2>/dev/null); do t=$((t + $(cpuns "$p"))); done
  echo "${t:-0}"
}
measure() {
  local name=$1
  local out qps lost
  out=$(taskset -c "$CLIENT_CPU" dnsperf -s 127.0.0.1 -p "$PORT" -d "$QUERIES" -l "$DURATION" -c 4 -q 100 2>&1)
  qps=$(echo "$out" | awk '/Queries per second:/ {print $4}')
  lost=$(echo "$out" | awk '/Queries lost:/ {print $3}')
  local comp
  comp=$(echo "$out" | awk '/Response codes:/ {$1=$2=""; print}')
  printf '  round %s %-10s %10s qps  lost %-6s %s\n' "$ROUND" "$name" "$qps" "$lost" "$comp" >&2
  ROUNDS_QPS[$name]="${ROUNDS_QPS[$name]:-} $qps"
  # Best round per server (throughput under interference: the best is the least disturbed).
  if [ -z "${QPS[$name]:-}" ] || awk -v a="$qps" -v b="${QPS[$name]}" 'BEGIN { exit !(a > b) }'; then
    QPS[$name]=$qps
    LOST[$name]=$lost
  fi
  # Fixed rate: CPU microseconds the server spends per query (all threads and processes).
  local c0 c1 done_q us
  c0=$(cpuns "$PID")
  out=$(taskset -c "$CLIENT_CPU" dnsperf -s 127.0.0.1 -p "$PORT" -d "$QUERIES" -l "$RATE_SECONDS" -Q "$RATE" -c 4 -q 100 2>&1)
  c1=$(cpuns "$PID")
  done_q=$(echo "$out" | awk '/Queries completed:/ {print $3}')
  us=$(awk -v a="$c0" -v b="$c1" -v n="$done_q" 'BEGIN { if (n > 0) printf "%.1f", (b - a) / 1000 / n; else print "n/a" }')
  printf '  round %s %-10s %10s CPU us/query at %s qps\n' "$ROUND" "$name" "$us" "$RATE" >&2
  ROUNDS_CPU[$name]="${ROUNDS_CPU[$name]:-} $us"
  if [ -z "${CPU[$name]:-}" ] || awk -v a="$us" -v b="${CPU[$name]}" 'BEGIN { exit !(a < b) }'; then CPU[$name]=$us; fi
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  sleep 1
}

echo "server-qps: ${DURATION}s per server, $ROUNDS round(s), server on CPU $SERVER_CPU, dnsperf on CPU $CLIENT_CPU, $NAMES jurisdiction names, port $PORT" >&2

lexroute_from() {
  local name=$1 dir=$2
  want "$name" || return 0
  taskset -c "$SERVER_CPU" "$NODE" "$dir/bin/lexroute.js" serve --zones "$ZONE" --listen "127.0.0.1:$PORT" --log-level warn &
  PID=$!
  wait_port
  measure "$name"
}

for ROUND in $(seq 1 "$ROUNDS"); do
# lexroute, and the same from an earlier checkout right before or after it
# (before/after in one run; the order alternates by round, so neither gets
# the quieter half of the round throughout)
if [ -n "$BASELINE" ] && [ $((ROUND % 2)) = 0 ]; then
  lexroute_from baseline "$BASELINE"
  lexroute_from lexroute .
else
  lexroute_from lexroute .
  if [ -n "$BASELINE" ]; then lexroute_from baseline "$BASELINE"; fi
fi
if [ -n "$BASELINE" ] && want baseline-rrl; then
  taskset -c "$SERVER_CPU" "$NODE" "$BASELINE/bin/lexroute.js" serve --zones "$ZONE" --listen "127.0.0.1:$PORT" --log-level warn --rrl 1000000 &
  PID=$!
  wait_port
  measure baseline-rrl
fi

# BIND 9, one worker thread
if want bind; then
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
zone "lex.bench" { type primary; file "$ZONE"; };
CONF
chmod 644 "$TMP/named.conf"
chmod 777 "$TMP"
USERARG=()
if [ "$(id -u)" = 0 ]; then USERARG=(-u nobody); fi
taskset -c "$SERVER_CPU" "$NAMED" -g -n 1 -c "$TMP/named.conf" "${USERARG[@]}" 2>"$TMP/named.log" &
PID=$!
wait_port || { cat "$TMP/named.log" >&2; exit 1; }
measure bind
fi

# lexroute with RRL on at a rate no query of the mix reaches (the cost of the accounting)
if want lexroute-rrl; then
taskset -c "$SERVER_CPU" "$NODE" bin/lexroute.js serve --zones "$ZONE" --listen "127.0.0.1:$PORT" --log-level warn --rrl 1000000 &
PID=$!
wait_port
measure lexroute-rrl
fi

# lexroute with two answering workers (SO_REUSEPORT), on both cores
if want lexroute-w2; then
taskset -c "$SERVER_CPU,$CLIENT_CPU" "$NODE" bin/lexroute.js serve --zones "$ZONE" --listen "127.0.0.1:$PORT" --log-level warn --workers 2 &
PID=$!
wait_port
measure lexroute-w2
fi

# NSD, one server process
if command -v nsd >/dev/null 2>&1 && want nsd; then
cat >"$TMP/nsd.conf" <<CONF
server:
  ip-address: 127.0.0.1@$PORT
  server-count: 1
  username: ""
  chroot: ""
  zonesdir: "$TMP"
  pidfile: "$TMP/nsd.pid"
  database: ""
  zonelistfile: "$TMP/nsd.zonelist"
  xfrdfile: "$TMP/nsd.xfrd"
  xfrdir: "$TMP"
  verbosity: 0
  hide-version: yes
  # NSD limits responses by default (rrl-ratelimit 200): off, as the others here.
  rrl-ratelimit: 0
  rrl-whitelist-ratelimit: 0
remote-control:
  control-enable: no
zone:
  name: lex.bench
  zonefile: "$ZONE"
CONF
taskset -c "$SERVER_CPU" nsd -d -c "$TMP/nsd.conf" 2>"$TMP/nsd.log" &
PID=$!
wait_port || { cat "$TMP/nsd.log" >&2; exit 1; }
measure nsd
fi

# Knot DNS, one UDP worker
if command -v knotd >/dev/null 2>&1 && want knot; then
mkdir -p "$TMP/knot"
cat >"$TMP/knot.conf" <<CONF
server:
    rundir: "$TMP/knot"
    listen: 127.0.0.1@$PORT
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
database:
    storage: "$TMP/knot"
log:
  - target: stderr
    any: error
zone:
  - domain: lex.bench
    storage: "$TMP/knot"
    file: "$ZONE"
CONF
taskset -c "$SERVER_CPU" knotd -c "$TMP/knot.conf" 2>"$TMP/knot.log" &
PID=$!
wait_port || { cat "$TMP/knot.log" >&2; exit 1; }
measure knot
fi

# The Node ceiling
if want ceiling; then
taskset -c "$SERVER_CPU" "$NODE" bench/server-ceiling.ts "$PORT" 2>/dev/null &
PID=$!
wait_ceiling
measure ceiling
fi
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a + 0 > 0) printf "%.2f", a / b; else print "n/a" }'; }
# Per round, $1's figure over $2's (same round: measured minutes apart at most), then the median.
per_round() {
  local -n fig=$1
  awk -v a="${fig[$2]:-}" -v b="${fig[$3]:-}" 'BEGIN {
    n = split(a, x, " "); m = split(b, y, " "); if (m < n) n = m;
    k = 0;
    for (i = 1; i <= n; i++) if (y[i] > 0) { r[++k] = x[i] / y[i]; printf "%s%.2f", (k > 1 ? " " : ""), r[k]; }
    if (k == 0) { print "n/a"; exit }
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t; }
    med = (k % 2) ? r[(k + 1) / 2] : (r[k / 2] + r[k / 2 + 1]) / 2;
    printf "   median %.2f", med;
  }'
}
echo
printf '%-22s %14s %8s %22s\n' "server" "queries/s" "lost" "CPU us/query @$RATE/s"
printf '%-22s %14s %8s %22s\n' "lexroute" "${QPS[lexroute]:-n/a}" "${LOST[lexroute]:-n/a}" "${CPU[lexroute]:-n/a}"
printf '%-22s %14s %8s %22s\n' "lexroute --rrl" "${QPS[lexroute-rrl]:-n/a}" "${LOST[lexroute-rrl]:-n/a}" "${CPU[lexroute-rrl]:-n/a}"
printf '%-22s %14s %8s %22s\n' "lexroute --workers 2" "${QPS[lexroute-w2]:-n/a}" "${LOST[lexroute-w2]:-n/a}" "${CPU[lexroute-w2]:-n/a}"
if [ -n "$BASELINE" ]; then
  printf '%-22s %14s %8s %22s\n' "baseline" "${QPS[baseline]:-n/a}" "${LOST[baseline]:-n/a}" "${CPU[baseline]:-n/a}"
  printf '%-22s %14s %8s %22s\n' "baseline --rrl" "${QPS[baseline-rrl]:-n/a}" "${LOST[baseline-rrl]:-n/a}" "${CPU[baseline-rrl]:-n/a}"
fi
printf '%-22s %14s %8s %22s\n' "BIND 9 (named -n 1)" "${QPS[bind]:-n/a}" "${LOST[bind]:-n/a}" "${CPU[bind]:-n/a}"
printf '%-22s %14s %8s %22s\n' "NSD (server-count 1)" "${QPS[nsd]:-n/a}" "${LOST[nsd]:-}" "${CPU[nsd]:-}"
printf '%-22s %14s %8s %22s\n' "Knot (udp-workers 1)" "${QPS[knot]:-n/a}" "${LOST[knot]:-}" "${CPU[knot]:-}"
printf '%-22s %14s %8s %22s\n' "Node ceiling" "${QPS[ceiling]:-n/a}" "${LOST[ceiling]:-n/a}" "${CPU[ceiling]:-n/a}"
echo
echo "throughput  lexroute / BIND:         $(ratio "${QPS[lexroute]:-n/a}" "${QPS[bind]:-n/a}")   (target >= 1.0)"
echo "throughput  lexroute / Node ceiling: $(ratio "${QPS[lexroute]:-n/a}" "${QPS[ceiling]:-n/a}")   (target >= 0.9)"
echo "throughput  lexroute / NSD:          $(ratio "${QPS[lexroute]:-n/a}" "${QPS[nsd]:-0}")"
echo "throughput  lexroute / Knot:         $(ratio "${QPS[lexroute]:-n/a}" "${QPS[knot]:-0}")"
echo "throughput  RRL on / off:             $(ratio "${QPS[lexroute-rrl]:-n/a}" "${QPS[lexroute]:-n/a}")   (target >= 0.97)"
echo "throughput  --workers 2 / 1:          $(ratio "${QPS[lexroute-w2]:-n/a}" "${QPS[lexroute]:-n/a}")   (2 cores, one shared with dnsperf)"
echo "CPU cost    workers 1 / 2:            $(ratio "${CPU[lexroute]:-n/a}" "${CPU[lexroute-w2]:-n/a}")   (> 1: two workers cheaper per query)"
echo "CPU cost    RRL off / on:             $(ratio "${CPU[lexroute]:-n/a}" "${CPU[lexroute-rrl]:-n/a}")"
if [ -n "$BASELINE" ]; then
  echo "throughput  lexroute / baseline:      $(ratio "${QPS[lexroute]:-n/a}" "${QPS[baseline]:-n/a}")"
  echo "CPU cost    lexroute / baseline:      $(ratio "${CPU[lexroute]:-n/a}" "${CPU[baseline]:-n/a}")   (< 1: cheaper per query now)"
  echo "CPU cost    RRL on, lexroute / base:  $(ratio "${CPU[lexroute-rrl]:-n/a}" "${CPU[baseline-rrl]:-n/a}")"
  echo "per round   CPU lexroute / baseline:  $(per_round ROUNDS_CPU lexroute baseline)   (< 1: cheaper per query now)"
  echo "per round   q/s lexroute / baseline:  $(per_round ROUNDS_QPS lexroute baseline)"
fi
echo "CPU cost    BIND / lexroute:         $(ratio "${CPU[bind]:-n/a}" "${CPU[lexroute]:-n/a}")   (> 1: lexroute cheaper per query)"
echo "CPU cost    ceiling / lexroute:      $(ratio "${CPU[ceiling]:-n/a}" "${CPU[lexroute]:-n/a}")"
