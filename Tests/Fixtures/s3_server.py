#!/usr/bin/env python3
"""A real S3-compatible server on loopback for the archive upload tests: moto's server (PyPI
moto[server], run in this process on a port of its own), behind a front that

  * checks every request's AWS SigV4 signature against the secret it is given (403 otherwise),
  * with --fail-every N answers every Nth PUT with 500 before it reaches the store,
  * with --down-seconds S refuses connections (nothing listens) for the first S seconds,
  * counts the PUTs that reached the store, per key,
  * answers GET /__oton/objects with {key: {"size": n, "puts": n}} and GET /__oton/object/KEY with the bytes.

Usage: s3_server.py --port P --bucket B --access-key K --secret S [--fail-every N] [--down-seconds S]
Prints "READY" once the front listens.
"""
import argparse
import hashlib
import hmac
import http.client
import http.server
import json
import socket
import sys
import threading
import time
import urllib.parse

import boto3
from moto.server import ThreadedMotoServer

args = None
store_port = None
lock = threading.Lock()
puts = {}
put_count = 0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def check_signature(method, raw_path, headers):
    auth = headers.get("Authorization", "")
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return "no SigV4 Authorization header"
    parts = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
    credential = parts["Credential"].split("/")
    if credential[0] != args.access_key:
        return "wrong access key"
    date, region, service = credential[1], credential[2], credential[3]
    signed = parts["SignedHeaders"].split(";")
    amz_date = headers.get("X-Amz-Date", "")
    payload = headers.get("x-amz-content-sha256")
    if payload is None:
        return "no x-amz-content-sha256 header"
    path, _, query = raw_path.partition("?")
    pairs = sorted(urllib.parse.parse_qsl(query, keep_blank_values=True))
    canonical_query = "&".join(urllib.parse.quote(k, safe="-_.~") + "=" + urllib.parse.quote(v, safe="-_.~") for k, v in pairs)
    canonical_headers = "".join(f"{h}:{' '.join((headers.get(h) or '').split())}\n" for h in signed)
    canonical = "\n".join([method, path, canonical_query, canonical_headers, ";".join(signed), payload])
    scope = f"{date}/{region}/{service}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + args.secret).encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, parts["Signature"]):
        return "signature does not match"
    if args.session_token and headers.get("x-amz-security-token") != args.session_token:
        return "wrong session token"
    return None


def store(method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", store_port, timeout=30)
    connection.request(method, path, body=body, headers=headers or {})
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer, data


class Front(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body=b"", headers=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, code, message):
        self.reply(status, f"<?xml version=\"1.0\"?><Error><Code>{code}</Code><Message>{message}</Message></Error>".encode(),
                   {"Content-Type": "application/xml"})

    def admin(self):
        client = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{store_port}", region_name="us-east-1",
                              aws_access_key_id="admin", aws_secret_access_key="admin")
        if self.path == "/__oton/objects":
            with lock:
                counts = dict(puts)
            result = {}
            for page in client.get_paginator("list_objects_v2").paginate(Bucket=args.bucket):
                for item in page.get("Contents", []):
                    result[item["Key"]] = {"size": item["Size"], "puts": counts.get(item["Key"], 0)}
            self.reply(200, json.dumps(result).encode(), {"Content-Type": "application/json"})
        elif self.path.startswith("/__oton/object/"):
            key = urllib.parse.unquote(self.path[len("/__oton/object/"):])
            try:
                data = client.get_object(Bucket=args.bucket, Key=key)["Body"].read()
            except Exception as error:  # noqa: BLE001 - the test reads the status
                return self.reply(404, str(error).encode())
            self.reply(200, data)
        else:
            self.reply(404)

    def handle_any(self):
        global put_count
        if self.path.startswith("/__oton/"):
            return self.admin()
        length = int(self.headers.get("Content-Length") or 0)
        if self.headers.get("Expect", "").lower() == "100-continue":
            self.send_response_only(100)
            self.end_headers()
        body = self.rfile.read(length) if length else None
        problem = check_signature(self.command, self.path, self.headers)
        if problem:
            sys.stderr.write(f"s3_server: 403 {self.command} {self.path}: {problem}\n")
            return self.error(403, "SignatureDoesNotMatch", problem)
        if self.command == "PUT":
            with lock:
                put_count += 1
                fail = args.fail_every and put_count % args.fail_every == 0
            if fail:
                return self.error(500, "InternalError", "failing on purpose")
        forwarded = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "expect", "content-length", "transfer-encoding")}
        answer, data = store(self.command, self.path, body, forwarded)
        if self.command == "PUT" and 200 <= answer.status < 300:
            key = urllib.parse.unquote(self.path.partition("?")[0].split("/", 2)[2])
            with lock:
                puts[key] = puts.get(key, 0) + 1
        headers = {k: v for k, v in answer.getheaders() if k.lower() in ("etag", "content-type", "last-modified")}
        if self.command == "HEAD":
            self.send_response(answer.status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", answer.getheader("Content-Length") or "0")
            self.end_headers()
            return
        self.reply(answer.status, data, headers)

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = handle_any


def main():
    global args, store_port
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--access-key", required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--session-token")
    parser.add_argument("--fail-every", type=int, default=0)
    parser.add_argument("--down-seconds", type=float, default=0)
    args = parser.parse_args()
    store_port = free_port()
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=store_port, verbose=False)
    moto.start()
    answer, _ = store("PUT", f"/{args.bucket}")
    assert answer.status == 200, answer.status
    if args.down_seconds:
        sys.stdout.write("DOWN\n")
        sys.stdout.flush()
        time.sleep(args.down_seconds)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Front)
    server.daemon_threads = True
    sys.stdout.write("READY\n")
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
