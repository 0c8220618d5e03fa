#!/bin/bash
# run.sh BIN URL SECONDS: peak RSS of oton record over SECONDS, tracks finished, index size, SIGTERM time
BIN=$1; URL=$2; SECS=$3
OUT=$(mktemp -d ${TMPDIR:-/tmp}/oton-bench-out.XXXX)
echo '{"stations": [], "plugins": []}' > $OUT/plugins.json
$BIN record "$URL" --out $OUT/rec --config $OUT/plugins.json --events $OUT/events.jsonl --engine light > $OUT/stdout 2> $OUT/stderr &
PID=$!
PEAK=0; RSS=0
for i in $(seq 1 $((SECS*2))); do
  sleep 0.5
  R=$(awk '/VmHWM/{print $2}' /proc/$PID/status 2>/dev/null); [ -n "$R" ] && PEAK=$R
  RSS=$(awk '/VmRSS/{print $2}' /proc/$PID/status 2>/dev/null)
done
FIN=$(grep -c 'recording.finished' $OUT/events.jsonl)
IDX=$(cat $OUT/rec/index.json $OUT/rec/index.jsonl 2>/dev/null | wc -c)
T0=$(date +%s.%N); kill -TERM $PID
for i in $(seq 1 600); do kill -0 $PID 2>/dev/null || break; sleep 0.1; done
T1=$(date +%s.%N)
kill -0 $PID 2>/dev/null && { kill -9 $PID; echo "still running 60 s after SIGTERM"; }
echo "$BIN: peakKB=$PEAK lastRSSKB=$RSS finished=$FIN index+journal bytes=$IDX (after stop: $(cat $OUT/rec/index.json 2>/dev/null | wc -c)) sigterm=$(echo "$T1 - $T0" | bc)s"
