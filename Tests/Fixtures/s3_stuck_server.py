#!/usr/bin/env python3
"""A hostile S3-speaking server on loopback for the archive upload tests: it keeps what is PUT
(no signature check) and answers HEAD with the stored size, except for the first segment (.mp3)
PUT to it, whose HEAD

  * with --mode silent never gets an answer (the connection stays open, nothing is sent),
  * with --mode trickle gets a status line and then header lines at about 2 KB/s, without end.

GET /__oton/objects answers {key: {"size": n, "puts": n, "heads": n}}, where "heads" counts the
HEADs answered in full, and "stuck" names the segment held (null before one is).

Usage: s3_stuck_server.py --port P --mode silent|trickle
Prints "READY" once it listens.
"""
import argparse
import http.server
import json
import sys
import threading
import time
import urllib.parse

lock = threading.Lock()
objects = {}
stuck = None
forever = threading.Event()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *values):
        sys.stderr.write("%s %s\n" % (self.command, self.path))

    def key(self):
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        return path.lstrip("/").split("/", 1)[1] if "/" in path.lstrip("/") else ""

    def answer(self, status, body=b"", content_type="application/xml"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PUT(self):
        global stuck
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        key = self.key()
        with lock:
            entry = objects.setdefault(key, {"size": 0, "puts": 0, "heads": 0})
            entry["size"] = len(body)
            entry["puts"] += 1
            if stuck is None and key.endswith(".mp3"):
                stuck = key
        self.answer(200)

    def do_HEAD(self):
        key = self.key()
        with lock:
            entry = objects.get(key)
            held = key == stuck
        if held and args.mode == "silent":
            forever.wait()
            return
        if held and args.mode == "trickle":
            try:
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                while True:
                    self.wfile.write(b"X-Padding: " + b"a" * 190 + b"\r\n")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                self.close_connection = True
                return
        if entry is None:
            self.answer(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(entry["size"]))
        self.end_headers()
        with lock:
            entry["heads"] += 1

    def do_GET(self):
        if self.path == "/__oton/objects":
            with lock:
                body = json.dumps({"objects": objects, "stuck": stuck}).encode()
            self.answer(200, body, "application/json")
            return
        self.answer(404)


parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--mode", choices=["silent", "trickle"], required=True)
args = parser.parse_args()
server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
server.daemon_threads = True
print("READY", flush=True)
server.serve_forever()
