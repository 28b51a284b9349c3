#!/usr/bin/env bash
# What `--no-concurrent-recompilation` (added by bin/lexroute.js to `serve`,
# `resolver` and `dev`) costs in answer latency: `serve` started through the
# bin as installed (default) and with `--concurrent-recompilation` given
# (the bin then leaves V8's background compiler on), in turn, ROUNDS times.
# Each start: dnsperf at a fixed RATE for SECONDS from the first answer
# (the warm-up, when V8 optimises the query path), then SECONDS more (steady).
# Prints dnsperf's average, maximum and standard deviation of the latency per
# window. Server pinned to SERVER_CPU, dnsperf to CLIENT_CPU.
#
#   bench/warmup-latency.sh
#   ROUNDS=5 RATE=20000 SECONDS_EACH=10 bench/warmup-latency.sh
set -euo pipefail
cd "$(dirname "$0")/.."
NODE=${NODE:-node_modules/.bin/node}
ROUNDS=${ROUNDS:-3}
RATE=${RATE:-20000}
SECONDS_EACH=${SECONDS_EACH:-10}
NAMES=${NAMES:-300}
PORT=${PORT:-5397}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
command -v dnsperf >/dev/null 2>&1 || { echo "dnsperf is required (apt-get install dnsperf)" >&2; exit 1; }
. bench/lex-bench.sh
bench_scratch warmup
ZONE=$TMP/lex.bench.zone
bench_zone "$ZONE" "$NAMES"
QUERIES=$TMP/queries.txt
bench_queries "$QUERIES" "$NAMES"

# One dnsperf window: "avg_ms max_ms stddev_ms".
window() {
  taskset -c "$CLIENT_CPU" dnsperf -s 127.0.0.1 -p "$PORT" -d "$QUERIES" -l "$SECONDS_EACH" -Q "$RATE" -c 4 -q 100 2>&1 |
    awk '/Average Latency/ { gsub(/[(),]/, " "); avg = $5 * 1000; max = $9 * 1000 }
         /Latency StdDev/ { sd = $4 * 1000 }
         END { printf "avg %6.3f ms  max %7.2f ms  stddev %6.3f ms", avg, max, sd }'
}

for r in $(seq 1 "$ROUNDS"); do
  for mode in default concurrent; do
    flags=()
    [ "$mode" = concurrent ] && flags=(--concurrent-recompilation)
    taskset -c "$SERVER_CPU" "$NODE" "${flags[@]}" bin/lexroute.js serve --zones "$ZONE" \
      --listen "127.0.0.1:$PORT" --log-level warn &
    PID=$!
    for _ in $(seq 1 200); do
      dig +short +time=1 +tries=1 -p "$PORT" @127.0.0.1 lex.bench SOA 2>/dev/null | grep -q hostmaster && break
      sleep 0.05
    done
    warm=$(window)
    steady=$(window)
    printf 'round %d %-10s warm-up: %s | steady: %s\n' "$r" "$mode" "$warm" "$steady"
    kill "$PID"
    wait "$PID" 2>/dev/null || true
    PID=""
  done
done
echo "default: --no-concurrent-recompilation (the bin's); concurrent: V8's background compiler on"
echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) at end"
