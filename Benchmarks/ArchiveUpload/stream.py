import http.server, sys, time
data = open(sys.argv[2], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Type", "audio/mpeg"); self.end_headers()
        i = 0
        try:
            while True:
                self.wfile.write(data[i:i+16000]); i = (i + 16000) % len(data); time.sleep(1)
        except Exception: pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H); s.daemon_threads = True; s.serve_forever()
