#!/bin/bash
# Upload throughput: 24 segments of 8 MiB (192 MiB) left in the journal, uploaded by `oton record` at its start
# to moto behind the signature-checking front (Tests/Fixtures/s3_server.py), loopback.
set -e
OTON=$1; FIX=$2; W=/tmp/ub/w; rm -rf $W; mkdir -p $W/out/St/2026/11/27 $W/out/.upload-queue
python3 "$(dirname "$0")/stream.py" 47811 "$3" & SP=$!
python3 $FIX --port 47812 --bucket bench --access-key AK --secret sec > $W/s3.out 2>&1 & FP=$!
for i in $(seq -w 1 24); do
  head -c 8388608 /dev/urandom > $W/out/St/2026/11/27/seg$i.mp3
  python3 -c "import json,sys,hashlib; r='St/2026/11/27/seg$i.mp3'; h=0xcbf29ce484222325
for b in r.encode(): h=((h^b)*0x100000001b3)&0xFFFFFFFFFFFFFFFF
open('$W/out/.upload-queue/%016x.json'%h,'w').write(json.dumps({'segment':r,'queued_unix':1}))"
done
while ! grep -q READY $W/s3.out; do sleep 0.5; done
export AWS_ACCESS_KEY_ID=AK AWS_SECRET_ACCESS_KEY=sec AWS_REGION=us-east-1
T0=$(date +%s.%N)
$OTON record http://127.0.0.1:47811/s.mp3 --out $W/out --archive 1h --upload s3://bench --upload-endpoint http://127.0.0.1:47812 --upload-delete --log-level info > $W/oton.out 2>&1 & OP=$!
while [ "$(ls $W/out/.upload-queue | wc -l)" != "0" ]; do sleep 0.2; done
T1=$(date +%s.%N)
kill -TERM $OP; wait $OP || true
kill -9 $SP $FP
python3 -c "print('192 MiB in %.2f s: %.1f MiB/s' % ($T1-$T0, 192/($T1-$T0)))"
grep -o "uploaded St/2026/11/27/seg01.mp3[^;]*" $W/oton.out | head -2
