#!/usr/bin/env python3
"""A loopback relay in front of Icecast that never asks for ICY metadata, as some CDNs and proxies do:
every GET is forwarded to http://127.0.0.1:UPSTREAM_PORT with the same path and without the
Icy-MetaData header, and the answer is streamed back. Prints "PORT n" once it listens and
"GET <path>" for each request. Ends when stdin closes. Usage: icy_stripping_relay.py UPSTREAM_PORT [--keep-icy]"""
import http.client
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

UPSTREAM = int(sys.argv[1])
KEEP_ICY = "--keep-icy" in sys.argv  # a plain relay: the listener's Icy-MetaData goes through


class Relay(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def do_GET(self):
        print("GET " + self.path, flush=True)
        upstream = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in (() if KEEP_ICY else ("icy-metadata",)) + ("host", "connection")}
        upstream.request("GET", self.path, headers=headers)
        answer = upstream.getresponse()
        self.send_response(answer.status)
        for key, value in answer.getheaders():
            if key.lower() not in (() if KEEP_ICY else ("icy-metaint",)) + ("connection", "transfer-encoding"):
                self.send_header(key, value)
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            while True:
                chunk = answer.read1(16384)
                if not chunk:
                    break
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            upstream.close()


server = ThreadingHTTPServer(("127.0.0.1", 0), Relay)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print("PORT %d" % server.server_address[1], flush=True)
sys.stdin.read()
