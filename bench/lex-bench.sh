# Sourced by bench/server-qps.sh, server-qps-dnssec.sh and warmup-latency.sh:
# their scratch folder, the zone they serve and the queries they ask.

# bench_scratch NAME: TMP, a fresh folder removed at exit, after the server
# whose pid is in PID (if any) is stopped.
bench_scratch() {
  TMP=$(mktemp -d "/tmp/lexroute-$1.XXXXXX")
  chmod 755 "$TMP"
  PID=""
  trap bench_cleanup EXIT
}
bench_cleanup() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}

# bench_zone FILE NAMES: LEX routing NAPTR records (the apex table and one
# key per jurisdiction j1..jNAMES) in lex.bench.
bench_zone() {
  {
    echo '$ORIGIN lex.bench.'
    echo '$TTL 3600'
    echo '@ IN SOA ns1 hostmaster 1 7200 3600 1209600 300'
    echo '@ IN NS ns1'
    echo 'ns1 IN A 192.0.2.1'
    echo '@ IN NAPTR 100 10 "" "" "!^urn:lex:([a-z0-9.-]+)[;:].*$!\\1.lex.bench!i" .'
    echo '@ IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://resolver.bench.example/uri-res/N2L?\\1!" .'
    for i in $(seq 1 "$2"); do
      echo "j$i IN NAPTR 100 10 \"\" \"\" \"!^urn:lex:j$i;([a-z0-9.-]+)[;:].*\$!\\\\1.j$i.lex.bench!i\" ."
      echo "j$i IN NAPTR 200 10 \"u\" \"http+N2L\" \"!^(.*)\$!https://j$i.resolver.example/uri-res/N2L?\\\\1!\" ."
    done
  } >"$1"
  chmod 644 "$1"
}

# bench_queries FILE NAMES: 20,000 queries, 40% apex NAPTR, 40% jurisdiction
# NAPTR, 10% NXDOMAIN, 10% NODATA.
bench_queries() {
  awk -v n="$2" 'BEGIN {
    srand(42);
    for (i = 0; i < 20000; i++) {
      r = i % 10;
      j = 1 + int(rand() * n);
      if (r < 4) print "lex.bench NAPTR";
      else if (r < 8) print "j" j ".lex.bench NAPTR";
      else if (r < 9) print "x" i ".lex.bench NAPTR";
      else print "j" j ".lex.bench A";
    }
  }' >"$1"
}
