#!/usr/bin/env python3
"""Hostile UPnP MediaRenderers for the UPnP casting plugin's tests.

Usage: hostile_renderer.py ADDRESS [HUGE_MB]  (ADDRESS: an IPv4 address of the interface the plugin searches on)

Serves two device descriptions over HTTP on ADDRESS (a free port, printed as "PORT n") and
announces both by SSDP (NOTIFY ssdp:alive to 239.255.255.250:1900 through ADDRESS, every second):

  /fault.xml  friendlyName with ESC sequences, a BEL, CR and newlines; every SOAP call to it
              answers a SOAP fault (UPnP error 701, "Transition not available").
  /hang.xml   friendlyName of 100 000 characters; every SOAP call to it is read and never
              answered (the connection stays open until this process ends).

With HUGE_MB, it serves and announces only /huge.xml instead: a description that starts as XML
and goes on with HUGE_MB MiB of junk inside <friendlyName>, made as it is sent (never stored).

Each request is printed as "REQUEST METHOD PATH". Exits when its standard input closes.
"""
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ADDRESS = sys.argv[1]
HUGE_MB = int(sys.argv[2]) if len(sys.argv) > 2 else 0
HUGE_UDN = "uuid:0071c0de-b16b-4000-8000-000000000000"
FAULT_UDN = "uuid:0071c0de-fa17-4000-8000-000000000701"
HANG_UDN = "uuid:0071c0de-4a49-4000-8000-000000000000"
RENDERER = "urn:schemas-upnp-org:device:MediaRenderer:1"


def description(udn, name, prefix):
    return f"""<?xml version="1.0" encoding="utf-8"?>
<root xmlns="urn:schemas-upnp-org:device-1-0">
<specVersion><major>1</major><minor>0</minor></specVersion>
<device>
<deviceType>{RENDERER}</deviceType>
<friendlyName>{name}</friendlyName>
<manufacturer>oton tests</manufacturer>
<modelName>Hostile{chr(27)}[2J Model</modelName>
<UDN>{udn}</UDN>
<serviceList>
<service><serviceType>urn:schemas-upnp-org:service:AVTransport:1</serviceType><serviceId>urn:upnp-org:serviceId:AVTransport</serviceId>
<SCPDURL>/{prefix}/avt.xml</SCPDURL><controlURL>/{prefix}/avt</controlURL><eventSubURL>/{prefix}/avt-events</eventSubURL></service>
<service><serviceType>urn:schemas-upnp-org:service:ConnectionManager:1</serviceType><serviceId>urn:upnp-org:serviceId:ConnectionManager</serviceId>
<SCPDURL>/{prefix}/cm.xml</SCPDURL><controlURL>/{prefix}/cm</controlURL><eventSubURL>/{prefix}/cm-events</eventSubURL></service>
</serviceList>
</device>
</root>
""".encode("utf-8")


DESCRIPTIONS = {
    "/fault.xml": description(FAULT_UDN, "Evil\x1b[31mRed\x07\r\nTV\x1b]0;owned\x07", "fault"),
    "/hang.xml": description(HANG_UDN, "A" * 100_000, "hang"),
}

FAULT = b"""<?xml version="1.0"?>
<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">
<s:Body><s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>
<UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>701</errorCode>
<errorDescription>Transition not available</errorDescription></UPnPError></detail></s:Fault></s:Body></s:Envelope>
"""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        print(f"REQUEST GET {self.path}", flush=True)
        if HUGE_MB and self.path == "/huge.xml":
            self.send_huge()
            return
        body = DESCRIPTIONS.get(self.path)
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", 'text/xml; charset="utf-8"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_huge(self):
        head = description(HUGE_UDN, "Huge", "huge").split(b"<friendlyName>")[0] + b"<friendlyName>"
        chunk = b"junk " * 13107 + b"j"  # 65 536 bytes
        self.send_response(200)
        self.send_header("Content-Type", 'text/xml; charset="utf-8"')
        self.send_header("Content-Length", str(len(head) + HUGE_MB * 16 * len(chunk)))
        self.end_headers()
        try:
            self.wfile.write(head)
            for _ in range(HUGE_MB * 16):
                self.wfile.write(chunk)
        except OSError:
            pass  # the reader died (its memory limit) or gave up
        print("HUGE SENT", flush=True)

    def do_POST(self):
        print(f"REQUEST POST {self.path}", flush=True)
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(min(length, 1 << 20))
        if self.path.startswith("/hang/"):
            while True:
                time.sleep(3600)
        self.send_response(500)
        self.send_header("Content-Type", 'text/xml; charset="utf-8"')
        self.send_header("Content-Length", str(len(FAULT)))
        self.end_headers()
        self.wfile.write(FAULT)


def announce(port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(ADDRESS))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
    while True:
        devices = (("/huge.xml", HUGE_UDN),) if HUGE_MB else (("/fault.xml", FAULT_UDN), ("/hang.xml", HANG_UDN))
        for path, udn in devices:
            for nt, usn in ((RENDERER, f"{udn}::{RENDERER}"), (udn, udn)):
                message = (
                    "NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nCACHE-CONTROL: max-age=1800\r\n"
                    f"LOCATION: http://{ADDRESS}:{port}{path}\r\nNT: {nt}\r\nNTS: ssdp:alive\r\n"
                    f"SERVER: Linux/6 UPnP/1.0 hostile/1\r\nUSN: {usn}\r\n\r\n"
                )
                sock.sendto(message.encode(), ("239.255.255.250", 1900))
        time.sleep(1)


def main():
    server = ThreadingHTTPServer((ADDRESS, 0), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    threading.Thread(target=announce, args=(port,), daemon=True).start()
    print(f"PORT {port}", flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
