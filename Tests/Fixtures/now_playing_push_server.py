#!/usr/bin/env python3
"""A loopback server speaking two documented now-playing push shapes, for NowPlayingProviderTests:
AzuraCast (REST /api/nowplaying/<shortcode>, and the SSE /api/live/nowplaying/sse whose first event is
the Centrifugo "connect" message with the station's recovered publication and whose later events are
{"channel": "station:<shortcode>", "pub": {"data": {"np": …}}}) and Zeno (SSE
/mounts/metadata/subscribe/<mount>, each event {"streamTitle": "Artist - Title"}). Any other path under
/listen/ or /zeno/ streams the MP3 file given as the argument. Prints "PORT n", then "SSE <path>" when a
channel connects. Commands on stdin: "azura ARTIST|TITLE", "zeno TEXT" push to the connected channels.
Usage: now_playing_push_server.py FILE.mp3"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

AUDIO = open(sys.argv[1], "rb").read()
lock = threading.Lock()
state = {"azura": ("First Artist", "First Song"), "zeno": "Z Artist - Z Song"}
channels = []  # (kind, wfile)


def np(artist, title):
    return {"station": {"name": "Oton Azura", "shortcode": "oton_test"},
            "now_playing": {"played_at": 1732873200, "duration": 200,
                            "song": {"artist": artist, "title": title, "text": artist + " - " + title}}}


def event(payload):
    return ("data: " + json.dumps(payload) + "\n\n").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/api/nowplaying/oton_test":
            with lock:
                body = json.dumps(np(*state["azura"])).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/api/live/nowplaying/sse" or path.startswith("/mounts/metadata/subscribe/"):
            kind = "azura" if path.startswith("/api/") else "zeno"
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            with lock:
                if kind == "azura":
                    first = {"connect": {"client": "c1", "subs": {"station:oton_test": {"publications": [{"data": {"np": np(*state["azura"])}}]}}}}
                else:
                    first = {"streamTitle": state["zeno"]}
                self.wfile.write(b": ping\n\n" + event(first))
                self.wfile.flush()
                channels.append((kind, self.wfile))
            print("SSE " + path, flush=True)
            threading.Event().wait()  # held open; the server writes pushes from the command thread
        elif path.startswith("/listen/") or path.startswith("/zeno/"):
            self.send_response(200)
            self.send_header("Content-Type", "audio/mpeg")
            self.send_header("Content-Length", str(len(AUDIO)))
            self.end_headers()
            try:
                self.wfile.write(AUDIO)
            except (BrokenPipeError, ConnectionResetError):
                pass
        else:
            self.send_error(404)


def commands():
    for line in sys.stdin:
        kind, _, value = line.strip().partition(" ")
        with lock:
            if kind == "azura":
                artist, _, title = value.partition("|")
                state["azura"] = (artist, title)
                payload = {"channel": "station:oton_test", "pub": {"data": {"np": np(artist, title)}}}
            else:
                state["zeno"] = value
                payload = {"streamTitle": value}
            for channel_kind, wfile in list(channels):
                if channel_kind != kind:
                    continue
                try:
                    wfile.write(event(payload))
                    wfile.flush()
                except (BrokenPipeError, ConnectionResetError, ValueError):
                    channels.remove((channel_kind, wfile))
    raise SystemExit(0)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print("PORT %d" % server.server_address[1], flush=True)
commands()
