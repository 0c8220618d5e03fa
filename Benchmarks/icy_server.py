#!/usr/bin/env python3
"""A synthetic ICY (Shoutcast/Icecast MP3) stream on 127.0.0.1 for the
track-latency benchmark: it loops an MP3 file and puts a new StreamTitle in
every metadata block (icy-metaint bytes apart), so a player sees many title
changes per second. It sends as fast as the client reads; a real-time sink
paces it.

Usage: icy_server.py MP3_FILE PORT_FILE [METAINT]
Writes the port it listens on to PORT_FILE, serves until killed.
"""
import socket
import socketserver
import sys
import threading


def metadata_block(text: str) -> bytes:
    payload = f"StreamTitle='{text}';".encode("utf-8")
    blocks = (len(payload) + 15) // 16
    return bytes([blocks]) + payload.ljust(blocks * 16, b"\0")


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(30)
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            request += chunk
        wants_metadata = b"icy-metadata: 1" in request.lower()
        metaint = self.server.metaint if wants_metadata else 0
        headers = [
            "HTTP/1.0 200 OK",
            "Content-Type: audio/mpeg",
            "icy-name: Latency Bench FM",
            "icy-genre: Benchmark",
        ]
        if metaint:
            headers.append(f"icy-metaint: {metaint}")
        self.request.sendall(("\r\n".join(headers) + "\r\n\r\n").encode())
        data = self.server.audio
        position = 0
        number = 0
        try:
            while True:
                if metaint:
                    chunk = bytearray()
                    while len(chunk) < metaint:
                        take = data[position:position + metaint - len(chunk)]
                        chunk += take
                        position = (position + len(take)) % len(data)
                    number += 1
                    self.request.sendall(bytes(chunk) + metadata_block(f"Artist {number} - Title {number}"))
                else:
                    self.request.sendall(data)
        except OSError:
            return


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    audio = open(sys.argv[1], "rb").read()
    port_file = sys.argv[2]
    metaint = int(sys.argv[3]) if len(sys.argv) > 3 else 512
    server = Server(("127.0.0.1", 0), Handler)
    server.audio = audio
    server.metaint = metaint
    with open(port_file, "w") as out:
        out.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
