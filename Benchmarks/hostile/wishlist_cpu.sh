#!/bin/bash
# run.sh BIN URL SECONDS: CPU seconds per title of oton record --wishlist after its first title, over SECONDS; SIGTERM time
BIN=$1; URL=$2; SECS=$3
OUT=$(mktemp -d ${TMPDIR:-/tmp}/oton-bench-out.XXXX)
$BIN record "$URL" --out $OUT/rec --config ${CONFIG_DIR:?folder with plugins.json and the wishlist.json to test}/plugins.json --events $OUT/events.jsonl --engine light --wishlist > $OUT/stdout 2> $OUT/stderr &
PID=$!
HZ=$(getconf CLK_TCK)
for i in $(seq 1 1800); do grep -q '"kind":"track"' $OUT/events.jsonl 2>/dev/null && break; sleep 0.1; done
C1=$(awk '{print $14+$15}' /proc/$PID/stat); N1=$(grep -c '"kind":"track"' $OUT/events.jsonl); H1=$(grep -c 'wish.heard' $OUT/events.jsonl)
sleep $SECS
C2=$(awk '{print $14+$15}' /proc/$PID/stat); N2=$(grep -c '"kind":"track"' $OUT/events.jsonl); H2=$(grep -c 'wish.heard' $OUT/events.jsonl)
T0=$(date +%s.%N); kill -TERM $PID
for i in $(seq 1 1200); do kill -0 $PID 2>/dev/null || break; sleep 0.1; done
T1=$(date +%s.%N)
if kill -0 $PID 2>/dev/null; then kill -9 $PID; echo "still running 120 s after SIGTERM (killed)"; fi
echo "$BIN: cpu over ${SECS}s after the first title=$(echo "scale=2; ($C2-$C1)/$HZ" | bc)s, track events in it=$((N2-N1)), wish.heard=$H2, sigterm=$(echo "$T1 - $T0" | bc)s"
grep -i "wishlist is too long" $OUT/stderr | cut -c1-200 | head -2
