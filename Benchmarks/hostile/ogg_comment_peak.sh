#!/bin/bash
# usage: run.sh OTON_BINARY URL SECONDS → prints peak RSS (VmHWM kB) of oton record
BIN=$1; URL=$2; SECS=$3
OUT=$(mktemp -d ${TMPDIR:-/tmp}/oton-bench-out.XXXX)
echo '{"stations": [], "plugins": []}' > $OUT/plugins.json
$BIN record "$URL" --out $OUT/rec --config $OUT/plugins.json --engine light --min-seconds 1 --partial keep > $OUT/stdout 2> $OUT/stderr &
PID=$!
PEAK=0
for i in $(seq 1 $((SECS*4))); do
  sleep 0.25
  R=$(awk '/VmHWM/{print $2}' /proc/$PID/status 2>/dev/null); [ -n "$R" ] && PEAK=$R
done
T0=$(date +%s.%N); kill -TERM $PID; wait $PID; RC=$?; T1=$(date +%s.%N)
echo "peakKB=$PEAK rc=$RC term=$(echo "$T1 - $T0" | bc)s out=$OUT"
find $OUT/rec -type f | head; tail -3 $OUT/stderr
