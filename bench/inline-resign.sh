#!/usr/bin/env bash
# Signing that costs what changed (issue 30): a 10-record change to an
# inline-signed zone (RECORDS NAPTR records, ECDSAP256SHA256 KSK+ZSK, NSEC3
# without salt or extra iterations), the time from the reload signal until the
# changed record is answered with its RRSIG: `lexroute serve --keys --nsec3`
# (SIGHUP; with and without --state-dir) against BIND 9 inline signing
# (`rndc reload`), same file, same keys, in the same run. Then the peak memory
# of the first signing: the `serve` process (VmHWM once the zone is served
# signed) against `dnssec-signzone` on the same file (GNU time). Ratios
# lexroute / BIND (targets <= 1.5); the CPU seconds each process used for the
# reload too (on a shared machine the wall time is mostly waiting for a
# core). BIND builds its NSEC3 chain in quanta of sig-signing-nodes names: set
# large (10,000) here, or the chain of a large zone takes hours before the
# change can be made. Every wait is bounded (TIMEOUT seconds), and the
# servers are stopped at exit.
#
#   bench/inline-resign.sh                 # 1,000,000 records
#   RECORDS=100000 bench/inline-resign.sh
#   STATE=0 bench/inline-resign.sh         # lexroute without --state-dir only
#   FIRST_ONLY=1 bench/inline-resign.sh    # first-signing peak RSS against dnssec-signzone only
#   DENIAL=nsec bench/inline-resign.sh     # NSEC instead of NSEC3 (BIND then signs a large zone far sooner)
#   XFR=1 bench/inline-resign.sh           # both serve transfers to 127.0.0.0/8 (lexroute then keeps IXFR differences)
#   ADDR=127.0.0.44 PORT=5398 BIND_PORT=15454 TIMEOUT=900
# named listens only on the addresses of an interface (127.0.0.1 here), so
# BIND gets its own port there; lexroute listens on ADDR:PORT.
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-1000000}
NODE=${NODE:-node_modules/.bin/node}
ADDR=${ADDR:-127.0.0.44}
BIND_ADDR=${BIND_ADDR:-127.0.0.1}
PORT=${PORT:-5398}
BIND_PORT=${BIND_PORT:-15454}
TIMEOUT=${TIMEOUT:-900}
STATE=${STATE:-both}
FIRST_ONLY=${FIRST_ONLY:-0}
DENIAL=${DENIAL:-nsec3}
XFR=${XFR:-0}
if [ "$XFR" = 1 ]; then
  LEX_XFR=(--allow-transfer 127.0.0.0/8) BIND_XFR='allow-transfer { 127.0.0.0/8; };'
else
  LEX_XFR=() BIND_XFR=''
fi
if [ "$DENIAL" = nsec3 ]; then
  LEX_DENIAL=(--nsec3) SIGNZONE_DENIAL=(-3 - -H 0) BIND_DENIAL='nsec3param iterations 0 optout no salt-length 0;' DENIAL_TYPE=NSEC3
else
  LEX_DENIAL=() SIGNZONE_DENIAL=() BIND_DENIAL='' DENIAL_TYPE=NSEC
fi
for t in dnssec-keygen dnssec-signzone named rndc rndc-confgen dig timeout /usr/bin/time; do
  command -v "$t" >/dev/null 2>&1 || { echo "$t is required (bind9, bind9-utils, dnsutils, time)" >&2; exit 1; }
done
TMP=$(mktemp -d /tmp/lexroute-inline-resign.XXXXXX)
PIDS=()
cleanup() {
  local i
  for p in "${PIDS[@]}"; do
    kill -0 "$p" 2>/dev/null || continue
    kill "$p" 2>/dev/null || true
    # named busy signing may take long to stop: 10 s, then KILL.
    for ((i = 0; i < 100; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

zone() { # serial, changed (0/1): the 10 changed records are j0..j9's first NAPTR
  awk -v n="$RECORDS" -v serial="$1" -v changed="$2" 'BEGIN {
    print "$ORIGIN lex.bench."; print "$TTL 3600";
    printf "@ IN SOA ns1 hostmaster %d 7200 3600 1209600 300\n", serial; print "@ IN NS ns1"; print "ns1 IN A 192.0.2.1";
    for (i = 0; i < n / 2; i++) {
      svc = (changed && i < 10) ? "changed" : "";
      printf "j%d IN NAPTR 100 10 \"\" \"%s\" \"!^urn:lex:j%d;([a-z0-9.-]+)[;:].*$!\\\\1.j%d.lex.bench!i\" .\n", i, svc, i, i;
      printf "j%d IN NAPTR 200 10 \"u\" \"http+N2L\" \"!^(.*)$!https://j%d.resolver.example/uri-res/N2L?\\\\1!\" .\n", i, i;
    }
  }'
}
mkdir -p "$TMP/keys" "$TMP/lex" "$TMP/bind"
chmod 755 "$TMP"
zone 1 0 >"$TMP/zone.v1"
zone 2 1 >"$TMP/zone.v2"
dnssec-keygen -q -K "$TMP/keys" -a ECDSAP256SHA256 -f KSK -n ZONE lex.bench >/dev/null
dnssec-keygen -q -K "$TMP/keys" -a ECDSAP256SHA256 -n ZONE lex.bench >/dev/null
echo "inline-resign: $RECORDS NAPTR records, ECDSAP256SHA256 KSK+ZSK, $DENIAL_TYPE (NSEC3: no salt, 0 iterations); a change of 10 records"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
# CPU seconds (user + system, every thread) a process has used so far.
cpu() { awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }
# Wait (at most TIMEOUT s) until j0's NAPTR answer (with DO) from addr:PORT
# has the wanted service field and an RRSIG over the NAPTR RRset.
signed_answer() { # addr, port, service, pid, what, log
  local out end=$((SECONDS + TIMEOUT))
  while ((SECONDS < end)); do
    out=$(dig +time=1 +tries=1 +dnssec +norec @"$1" -p "$2" j0.lex.bench NAPTR 2>/dev/null || true)
    if grep -q "NAPTR.*100 10 \"\" \"$3\"" <<<"$out" && grep -q 'RRSIG[[:space:]]*NAPTR' <<<"$out"; then return 0; fi
    kill -0 "$4" 2>/dev/null || { echo "$5: the server stopped" >&2; tail -20 "$6" >&2; exit 1; }
    sleep 0.05
  done
  echo "$5: no signed answer within $TIMEOUT s" >&2
  tail -20 "$6" >&2
  exit 1
}
# Wait (at most TIMEOUT s) until a name that does not exist is denied with
# NSEC3 (BIND builds the chain after signing with NSEC) or NSEC, and the last
# name of the zone is signed (BIND signs in quanta after it starts answering).
denial() { # addr, port, pid, what
  local end=$((SECONDS + TIMEOUT)) last=j$((RECORDS / 2 - 1)).lex.bench
  while ((SECONDS < end)); do
    if dig +time=1 +tries=1 +dnssec +norec @"$1" -p "$2" nope.lex.bench A 2>/dev/null | grep -q "IN[[:space:]]*$DENIAL_TYPE[[:space:]]" &&
      dig +time=1 +tries=1 +dnssec +norec @"$1" -p "$2" "$last" NAPTR 2>/dev/null | grep -q 'RRSIG[[:space:]]*NAPTR'; then return 0; fi
    kill -0 "$3" 2>/dev/null || { echo "$4: the server stopped" >&2; exit 1; }
    sleep 0.2
  done
  echo "$4: no $DENIAL_TYPE denial or unsigned last name within $TIMEOUT s" >&2
  exit 1
}

# dnssec-signzone: peak memory of signing the file once.
timeout "$TIMEOUT" /usr/bin/time -f "%e %M" -o "$TMP/signzone.time" dnssec-signzone -q -K "$TMP/keys" -d "$TMP" \
  -o lex.bench -S "${SIGNZONE_DENIAL[@]}" -f "$TMP/signed" "$TMP/zone.v1" >/dev/null 2>&1
read -r W_signzone M_signzone <"$TMP/signzone.time"
rm -f "$TMP/signed"

# lexroute: first signing (start), then the change + SIGHUP. $1: "state" (--state-dir) or "memory".
lexroute() {
  local mode=$1 extra=() t0 pid
  rm -rf "$TMP/state" && mkdir "$TMP/state"
  [ "$mode" = state ] && extra=(--state-dir "$TMP/state")
  cp "$TMP/zone.v1" "$TMP/lex/lex.bench.zone"
  t0=$(now)
  "$NODE" bin/lexroute.js serve --zones "$TMP/lex/lex.bench.zone" --listen "$ADDR:$PORT" --log-level info \
    --keys "$TMP/keys" "${LEX_DENIAL[@]}" "${LEX_XFR[@]}" "${extra[@]}" >"$TMP/lex-$mode.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  signed_answer "$ADDR" "$PORT" "" "$pid" "lexroute ($mode)" "$TMP/lex-$mode.log"
  eval "S_first_$mode=$(since "$t0")"
  eval "M_first_$mode=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")"
  if [ "$FIRST_ONLY" = 1 ]; then
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    return
  fi
  cp "$TMP/zone.v2" "$TMP/lex/lex.bench.zone.new" && mv "$TMP/lex/lex.bench.zone.new" "$TMP/lex/lex.bench.zone"
  c0=$(cpu "$pid")
  t0=$(now)
  kill -HUP "$pid"
  signed_answer "$ADDR" "$PORT" changed "$pid" "lexroute ($mode)" "$TMP/lex-$mode.log"
  eval "S_reload_$mode=$(since "$t0")"
  eval "C_reload_$mode=$(minus "$(cpu "$pid")" "$c0")"
  eval "M_after_$mode=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")"
  sleep 0.5
  # The worker's account of the reload (steps, signatures kept and made).
  grep '"zone_loaded"' "$TMP/lex-$mode.log" | tail -1 | grep -o '"ms":[0-9]*,"phases":{[^}]*}\|"rrsets":[0-9]*,"kept":[0-9]*' |
    tr '\n' ' ' | sed "s/^/  lexroute ($mode) reload: /" >"$TMP/phases-$mode"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  # Printed now too: a BIND that does not finish signing within TIMEOUT still leaves these.
  eval "echo \"lexroute ($mode): first signed answer \$S_first_$mode s, SIGHUP -> change signed \$S_reload_$mode s, CPU \$C_reload_$mode s\""
}
case $STATE in
  both) MODES=(memory state) ;;
  0) MODES=(memory) ;;
  *) MODES=(state) ;;
esac
[ "$FIRST_ONLY" = 1 ] && MODES=(memory)
for m in "${MODES[@]}"; do lexroute "$m"; done
if [ "$FIRST_ONLY" = 1 ]; then
  printf '%-44s %8s s   peak RSS %6s MB\n' "lexroute first signed answer" "$S_first_memory" "$(mb "$M_first_memory")"
  printf '%-44s %8s s   peak RSS %6s MB\n' "dnssec-signzone (whole file)" "$W_signzone" "$(mb "$M_signzone")"
  echo "lexroute first signing / dnssec-signzone, peak RSS: $(ratio "$M_first_memory" "$M_signzone")  (target <= 1.5)"
  echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) at end"
  exit 0
fi

# BIND: inline signing of the same file with the same keys, then the change + rndc reload.
cp "$TMP/zone.v1" "$TMP/bind/lex.bench.zone"
rndc-confgen -a -c "$TMP/rndc.key" -k rk >/dev/null 2>&1
cat >"$TMP/named.conf" <<CONF
include "$TMP/rndc.key";
controls { inet $BIND_ADDR port $((BIND_PORT + 1)) allow { 127.0.0.0/8; } keys { rk; }; };
options { directory "$TMP/bind"; listen-on port $BIND_PORT { $BIND_ADDR; }; listen-on-v6 { none; };
  pid-file "$TMP/named.pid"; recursion no; dnssec-validation no; notify no; $BIND_XFR };
dnssec-policy bench { keys { ksk key-directory lifetime unlimited algorithm ecdsap256sha256;
  zsk key-directory lifetime unlimited algorithm ecdsap256sha256; }; $BIND_DENIAL };
zone "lex.bench" { type primary; file "lex.bench.zone"; key-directory "$TMP/keys"; dnssec-policy bench; inline-signing yes;
  sig-signing-nodes 10000; sig-signing-signatures 100000; };
CONF
t0=$(now)
named -g -n 2 -c "$TMP/named.conf" >"$TMP/named.log" 2>&1 &
NAMED=$!
PIDS+=("$NAMED")
signed_answer "$BIND_ADDR" "$BIND_PORT" "" "$NAMED" BIND "$TMP/named.log"
denial "$BIND_ADDR" "$BIND_PORT" "$NAMED" BIND
S_bind_first=$(since "$t0")
M_bind_first=$(awk '/VmHWM/ {print $2}' "/proc/$NAMED/status")
sleep 1
cp "$TMP/zone.v2" "$TMP/bind/lex.bench.zone.new" && mv "$TMP/bind/lex.bench.zone.new" "$TMP/bind/lex.bench.zone"
c0=$(cpu "$NAMED")
t0=$(now)
timeout 60 rndc -s "$BIND_ADDR" -p $((BIND_PORT + 1)) -k "$TMP/rndc.key" reload lex.bench >/dev/null
signed_answer "$BIND_ADDR" "$BIND_PORT" changed "$NAMED" BIND "$TMP/named.log"
S_bind=$(since "$t0")
C_bind=$(minus "$(cpu "$NAMED")" "$c0")
M_named=$(awk '/VmHWM/ {print $2}' "/proc/$NAMED/status")
kill "$NAMED"
wait "$NAMED" 2>/dev/null || true

echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) at end"
printf '%-44s %8s s   peak RSS %6s MB\n' "BIND named whole zone signed ($DENIAL_TYPE)" "$S_bind_first" "$(mb "$M_bind_first")"
for m in "${MODES[@]}"; do
  eval "f=\$S_first_$m; fm=\$M_first_$m"
  printf '%-44s %8s s   peak RSS %6s MB\n' "lexroute ($m) first signed answer" "$f" "$(mb "$fm")"
done
printf '%-44s %8s s   peak RSS %6s MB   CPU %6s s\n' "BIND rndc reload -> change signed" "$S_bind" "$(mb "$M_named")" "$C_bind"
for m in "${MODES[@]}"; do
  eval "r=\$S_reload_$m; rm=\$M_after_$m; rc=\$C_reload_$m"
  printf '%-44s %8s s   peak RSS %6s MB   CPU %6s s\n' "lexroute ($m) SIGHUP -> change signed" "$r" "$(mb "$rm")" "$rc"
  cat "$TMP/phases-$m" && echo
done
printf '%-44s %8s s   peak RSS %6s MB\n' "dnssec-signzone (whole file)" "$W_signzone" "$(mb "$M_signzone")"
for m in "${MODES[@]}"; do
  eval "r=\$S_reload_$m; fm=\$M_first_$m; rc=\$C_reload_$m"
  echo "lexroute ($m) / BIND, reload of a 10-record change: $(ratio "$r" "$S_bind")  (target <= 1.5), CPU $(ratio "$rc" "$C_bind")"
  echo "lexroute ($m) first signing / dnssec-signzone, peak RSS: $(ratio "$fm" "$M_signzone")  (target <= 1.5)"
done
