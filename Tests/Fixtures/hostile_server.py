#!/usr/bin/python3
"""A hostile HTTP server on loopback, one path per way a station or a status
API can misbehave. For the hardening tests; every loop is bounded in time.

    hostile_server.py [MAX_SECONDS]

Listens on 127.0.0.1 (a free port), prints "PORT <n>" on standard output and
serves until MAX_SECONDS (default 300) have passed or standard input closes
(the test process died). Each request line is printed as "REQUEST <path>".

Paths:
  /silent             accepts, reads the request, sends nothing (slowloris)
  /headers-only       sends 200 audio/mpeg headers, then nothing
  /redirect-loop      302 to itself, forever
  /redirect-ftp       302 to ftp://127.0.0.1/x.mp3
  /redirect-file      302 to file:///etc/passwd
  /endless-json       200 application/json, an endless chunked body
  /gzip-bomb          200 application/json, Content-Encoding: gzip, 1 GiB of spaces inflated
  /big-json           200 application/json, Content-Length 50 MB, a valid document
  /deep-json          200 application/json, 1 MiB of 500-deep nested arrays
  /status/NNN         that HTTP status with a short body
  /icy?metaint=N&meta=KIND&rate=BYTES
                      an MP3 stream (silent 128 kbit/s frames) paced at RATE bytes/s (default 16000,
                      0: as fast as the socket takes them), with icy-metaint N (default 8192) and
                      each metadata block of KIND: title (StreamTitle='Hostile - N'), junk (random
                      bytes), nul (NULs only), huge (255 × 16 bytes), long (255 × 16 bytes: the block's
                      number, then x to the end, so each names a new title)
  /icy-slow           headers of an ICY MP3 stream, then one byte every 2 s (slowloris)
  /gzip-mp3           MP3 frames sent with Content-Encoding: gzip (a stream no radio server should compress)
  /shoutcast-v1       a SHOUTcast v1 answer ("ICY 200 OK", not HTTP): icy-name "Shoutcast One", MP3 at
                      16000 bytes/s with icy-metaint 8192; 'Artist A - Song One' for 6 s, then
                      'Artist B - Song Two' (not an attack: the stream shape streamripper records)
  /id3-mp3            a 20 KB ID3v2 tag, then MP3 frames at 16000 bytes/s, no ICY metadata
  /file?path=P&type=T&rate=R[&metaint=N][&burst=B][&then=Q]
                      the file P as Content-Type T at R bytes/s (once), with ICY metadata every N
                      bytes naming StreamTitle='File Artist - File Song' when N is given (not an
                      attack: the light engine's codec matrix); the first B bytes at once (as
                      Icecast's burst to a new listener); then the file Q in the same body (a
                      server that switches codec mid-connection, or a chained Ogg of two codecs)
  /ogg?path=P&comment=N&chains=K&rate=R
                      the Ogg Vorbis file P as audio/ogg at R bytes/s (0: as fast as the socket takes
                      it), K times in a row (default 1, 0: until the connection's time is up), each
                      time as a new chain link (a new serial) whose comment header names
                      TITLE=Chain N and carries a COMMENT of N bytes (default 0: none)
"""
import binascii
import os
import socket
import sys
import threading
import time
import urllib.parse
import zlib

DEADLINE = time.monotonic() + (float(sys.argv[1]) if len(sys.argv) > 1 else 300.0)
CONNECTION_SECONDS = 60.0
_bomb = None
_bomb_lock = threading.Lock()


def gzip_bomb():
    """1 GiB of spaces as one gzip member (about 1 MiB). Built in well under a second: each 1 MiB
    of spaces is compressed once after a full flush, so every copy is the same bytes (a block
    that refers to nothing before it), and the CRC is run over the spaces 1024 times."""
    global _bomb
    with _bomb_lock:
        if _bomb is None:
            compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: gzip container
            chunk = b" " * (1 << 20)
            head = compressor.compress(b"{\"a\":\"") + compressor.flush(zlib.Z_FULL_FLUSH)
            block = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
            tail = compressor.compress(b"\"}") + compressor.flush()
            # The trailer of the member as zlib wrote it covers one chunk: rewrite CRC32 and size.
            crc = zlib.crc32(b"{\"a\":\"")
            for _ in range(1024):
                crc = zlib.crc32(chunk, crc)
            crc = zlib.crc32(b"\"}", crc)
            size = (len(b"{\"a\":\"") + 1024 * len(chunk) + len(b"\"}")) & 0xFFFFFFFF
            body = head + block * 1024 + tail[:-8]
            _bomb = body + crc.to_bytes(4, "little") + size.to_bytes(4, "little")
        return _bomb


def deep_json():
    unit = b"[" * 500 + b"]" * 500
    count = (1 << 20) // (len(unit) + 1)
    return b"[" + b",".join([unit] * count) + b"]"


def send(conn, data):
    conn.sendall(data)


def hold(conn):
    """Keeps the connection open, sending nothing, until the client leaves or time is up."""
    conn.settimeout(1.0)
    end = min(time.monotonic() + CONNECTION_SECONDS, DEADLINE)
    while time.monotonic() < end:
        try:
            if conn.recv(4096) == b"":
                return
        except socket.timeout:
            continue
        except OSError:
            return


def head(status, reason, headers, length=None):
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in headers.items()]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def mp3_frame():
    """One MPEG-1 Layer III frame, 128 kbit/s, 44.1 kHz, no padding: 417 bytes of silence."""
    return b"\xff\xfb\x90\x64" + bytes(413)


def icy_stream(conn, query):
    options = dict(item.split("=", 1) for item in query.split("&") if "=" in item)
    metaint = int(options.get("metaint", "8192"))
    kind = options.get("meta", "title")
    rate = int(options.get("rate", "16000"))
    send(conn, head(200, "OK", {"Content-Type": "audio/mpeg", "icy-metaint": str(metaint), "icy-name": "Hostile ICY"}))
    frames = mp3_frame() * 64
    position = 0
    counter = 0
    started = time.monotonic()
    sent = 0
    end = min(time.monotonic() + CONNECTION_SECONDS, DEADLINE)
    while time.monotonic() < end:
        out = bytearray()
        budget = 4096
        while budget > 0:
            take = min(metaint - (sent % metaint) if metaint > 0 else budget, budget)
            piece = frames[position % len(frames):][:take]
            if len(piece) < take:
                piece += frames[: take - len(piece)]
            position += take
            out += piece
            sent += take
            budget -= take
            if metaint > 0 and sent % metaint == 0:
                counter += 1
                if kind == "junk":
                    block = os.urandom(64)
                elif kind == "nul":
                    block = bytes(32)
                elif kind == "huge":
                    block = b"StreamTitle='" + b"x" * (255 * 16 - 15) + b"';"
                elif kind == "long":
                    number = b"%d " % counter
                    block = b"StreamTitle='" + number + b"x" * (255 * 16 - 15 - len(number)) + b"';"
                else:
                    block = b"StreamTitle='Hostile - %d';" % counter
                block = block[: 255 * 16]
                length = (len(block) + 15) // 16
                out += bytes([length]) + block + bytes(length * 16 - len(block))
        send(conn, bytes(out))
        if rate > 0:
            ahead = sent / rate - (time.monotonic() - started)
            if ahead > 0:
                time.sleep(ahead)


_BIT_REVERSED = bytes(int(f"{value:08b}"[::-1], 2) for value in range(256))


def ogg_crc(data):
    """The Ogg page CRC (polynomial 0x04C11DB7, not reflected, initial 0, no final xor), through
    zlib's reflected CRC-32 on bit-reversed bytes: fast enough for pages of megabytes of comments."""
    raw = ~binascii.crc32(data.translate(_BIT_REVERSED), 0xFFFFFFFF) & 0xFFFFFFFF
    return int(f"{raw:032b}"[::-1], 2)


def ogg_pages(data):
    """(header type, granule, serial, body, lacing) of each page of an Ogg file."""
    pages = []
    at = 0
    while at + 27 <= len(data) and data[at:at + 4] == b"OggS":
        segments = data[at + 26]
        lacing = data[at + 27:at + 27 + segments]
        start = at + 27 + segments
        length = sum(lacing)
        pages.append((data[at + 5], int.from_bytes(data[at + 6:at + 14], "little", signed=True),
                      int.from_bytes(data[at + 14:at + 18], "little"), data[start:start + length], lacing))
        at = start + length
    return pages


def ogg_page(kind, granule, serial, sequence, lacing, body):
    header = (b"OggS\x00" + bytes([kind]) + granule.to_bytes(8, "little", signed=True) + serial.to_bytes(4, "little")
              + sequence.to_bytes(4, "little") + bytes(4) + bytes([len(lacing)]) + bytes(lacing))
    crc = ogg_crc(header + body)
    return header[:22] + crc.to_bytes(4, "little") + header[26:] + body


def ogg_paginate(packets, serial, sequence):
    """Header packets on pages of their own (granule 0), as an encoder lays them out."""
    pages = []
    lacing = []
    body = bytearray()
    for packet in packets:
        rest = len(packet)
        offset = 0
        while True:
            take = min(255, rest)
            lacing.append(take)
            body += packet[offset:offset + take]
            offset += take
            rest -= take
            if len(lacing) == 255:
                pages.append((bytes(lacing), bool(rest or take == 255), bytes(body)))
                lacing, body = [], bytearray()
            if take < 255:
                break
    if lacing:
        pages.append((bytes(lacing), False, bytes(body)))
    out = []
    continued = False
    for lacing, ends_open, body in pages:
        # As libogg lays them out: a page on which no packet ends has granule -1.
        granule = 0 if any(value < 255 for value in lacing) else -1
        out.append(ogg_page(0x01 if continued else 0, granule, serial, sequence, lacing, body))
        sequence += 1
        continued = ends_open
    return out, sequence


def ogg_chain(pages, serial, number, comment_size):
    """One chain link: the file's first page, a new comment header, the setup header, the audio pages."""
    packets = []
    partial = b""
    header_pages = 0
    for index, (kind, granule, _, body, lacing) in enumerate(pages):
        offset = 0
        for value in lacing:
            partial += body[offset:offset + value]
            offset += value
            if value < 255:
                packets.append(partial)
                partial = b""
        if len(packets) >= 3:
            header_pages = index + 1
            break
    comments = [b"TITLE=Chain %d" % number, b"ARTIST=Hostile"]
    if comment_size:
        comments.append(b"COMMENT=" + b"x" * comment_size)
    vendor = b"hostile"
    packet = b"\x03vorbis" + len(vendor).to_bytes(4, "little") + vendor + len(comments).to_bytes(4, "little")
    for item in comments:
        packet += len(item).to_bytes(4, "little") + item
    packet += b"\x01"
    first = pages[0]
    out = [ogg_page(0x02, 0, serial, 0, first[4], first[3])]
    headers, sequence = ogg_paginate([packet, packets[2]], serial, 1)
    out += headers
    for kind, granule, _, body, lacing in pages[header_pages:]:
        out.append(ogg_page(kind & 0x05, granule, serial, sequence, lacing, body))
        sequence += 1
    return out


def ogg_stream(conn, query):
    options = dict(item.split("=", 1) for item in query.split("&") if "=" in item)
    with open(urllib.parse.unquote(options["path"]), "rb") as source:
        pages = ogg_pages(source.read())
    comment_size = int(options.get("comment", "0"))
    chains = int(options.get("chains", "1"))
    rate = int(options.get("rate", "16000"))
    send(conn, head(200, "OK", {"Content-Type": "audio/ogg", "icy-name": "Hostile Ogg"}))
    started = time.monotonic()
    sent = 0
    number = 0
    end = min(time.monotonic() + CONNECTION_SECONDS, DEADLINE)
    while (chains == 0 or number < chains) and time.monotonic() < end:
        number += 1
        for page in ogg_chain(pages, 0x1000 + number, number, comment_size):
            for at in range(0, len(page), 65536):
                piece = page[at:at + 65536]
                send(conn, piece)
                sent += len(piece)
                if rate > 0:
                    ahead = sent / rate - (time.monotonic() - started)
                    if ahead > 0:
                        time.sleep(ahead)
    hold(conn)


def shoutcast_v1(conn):
    send(conn, b"ICY 200 OK\r\nicy-notice1: <BR>SHOUTcast Distributed Network Audio Server/Linux v1.9.8<BR>\r\n"
               b"icy-name: Shoutcast One\r\nicy-genre: Test\r\nicy-pub: 0\r\nicy-br: 128\r\n"
               b"content-type: audio/mpeg\r\nicy-metaint: 8192\r\n\r\n")
    frames = mp3_frame() * 64
    started = time.monotonic()
    sent = 0
    end = min(time.monotonic() + CONNECTION_SECONDS, DEADLINE)
    while time.monotonic() < end:
        piece = bytearray()
        for _ in range(2):
            take = 8192 - (sent % 8192) if sent % 8192 else 8192
            piece += (frames * 2)[sent % len(frames):][:take]
            sent += take
            title = b"Artist A - Song One" if sent < 6 * 16000 else b"Artist B - Song Two"
            block = b"StreamTitle='" + title + b"';StreamUrl='';"
            block += bytes(-len(block) % 16)
            piece += bytes([len(block) // 16]) + block
        send(conn, bytes(piece))
        ahead = sent / 16000 - (time.monotonic() - started)
        if ahead > 0:
            time.sleep(ahead)


def serve(conn):
    try:
        conn.settimeout(10.0)
        request = b""
        while b"\r\n\r\n" not in request and len(request) < 65536:
            data = conn.recv(4096)
            if not data:
                return
            request += data
        line = request.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        path = parts[1] if len(parts) > 1 else "/"
        print("REQUEST " + path, flush=True)
        path, _, query = path.partition("?")
        if path == "/silent":
            hold(conn)
        elif path == "/headers-only":
            send(conn, head(200, "OK", {"Content-Type": "audio/mpeg", "icy-name": "Hostile"}))
            hold(conn)
        elif path == "/icy":
            icy_stream(conn, query)
        elif path == "/ogg":
            ogg_stream(conn, query)
        elif path == "/file":
            options = dict(item.split("=", 1) for item in query.split("&") if "=" in item)
            with open(urllib.parse.unquote(options["path"]), "rb") as source:
                body = source.read()
            if "then" in options:
                with open(urllib.parse.unquote(options["then"]), "rb") as source:
                    body += source.read()
            burst = int(options.get("burst", "0"))
            rate = int(options.get("rate", "16000"))
            metaint = int(options.get("metaint", "0"))
            headers = {"Content-Type": urllib.parse.unquote(options.get("type", "application/octet-stream"))}
            if metaint:
                headers["icy-metaint"] = str(metaint)
            send(conn, head(200, "OK", headers))
            block = b"StreamTitle='File Artist - File Song';"
            block += bytes(-len(block) % 16)
            started = time.monotonic()
            sent = 0
            while sent < len(body) and time.monotonic() < DEADLINE:
                take = min(4096, len(body) - sent, (metaint - sent % metaint) if metaint else 4096)
                piece = body[sent:sent + take]
                sent += take
                if metaint and sent % metaint == 0:
                    piece += bytes([len(block) // 16]) + block
                send(conn, piece)
                ahead = max(sent - burst, 0) / rate - (time.monotonic() - started)
                if ahead > 0:
                    time.sleep(ahead)
        elif path == "/gzip-mp3":
            send(conn, head(200, "OK", {"Content-Type": "audio/mpeg", "Content-Encoding": "gzip"}))
            compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
            end = min(time.monotonic() + CONNECTION_SECONDS, DEADLINE)
            while time.monotonic() < end:
                send(conn, compressor.compress(mp3_frame() * 38) + compressor.flush(zlib.Z_SYNC_FLUSH))
                time.sleep(1)
        elif path == "/shoutcast-v1":
            shoutcast_v1(conn)
        elif path == "/icy-slow":
            send(conn, head(200, "OK", {"Content-Type": "audio/mpeg", "icy-metaint": "8192"}))
            end = min(time.monotonic() + CONNECTION_SECONDS, DEADLINE)
            while time.monotonic() < end:
                send(conn, b"\xff")
                time.sleep(2)
        elif path == "/id3-mp3":
            tag_size = 20000
            size = bytes([(tag_size >> 21) & 0x7F, (tag_size >> 14) & 0x7F, (tag_size >> 7) & 0x7F, tag_size & 0x7F])
            send(conn, head(200, "OK", {"Content-Type": "audio/mpeg"}) + b"ID3\x04\x00\x00" + size + bytes(tag_size))
            started = time.monotonic()
            sent = 0
            end = min(time.monotonic() + CONNECTION_SECONDS, DEADLINE)
            while time.monotonic() < end:
                piece = mp3_frame() * 10
                send(conn, piece)
                sent += len(piece)
                ahead = sent / 16000 - (time.monotonic() - started)
                if ahead > 0:
                    time.sleep(ahead)
        elif path == "/redirect-loop":
            send(conn, head(302, "Found", {"Location": "/redirect-loop"}, 0))
        elif path == "/redirect-ftp":
            send(conn, head(302, "Found", {"Location": "ftp://127.0.0.1/x.mp3"}, 0))
        elif path == "/redirect-file":
            send(conn, head(302, "Found", {"Location": "file:///etc/passwd"}, 0))
        elif path == "/endless-json":
            send(conn, head(200, "OK", {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}))
            piece = b"[" * 4096
            chunk = b"%x\r\n%s\r\n" % (len(piece), piece)
            end = min(time.monotonic() + CONNECTION_SECONDS, DEADLINE)
            while time.monotonic() < end:
                send(conn, chunk)
        elif path == "/gzip-bomb":
            body = gzip_bomb()
            send(conn, head(200, "OK", {"Content-Type": "application/json", "Content-Encoding": "gzip"}, len(body)) + body)
        elif path == "/big-json":
            size = 50 * 1000 * 1000
            send(conn, head(200, "OK", {"Content-Type": "application/json"}, size))
            send(conn, b"{\"pad\":\"")
            sent = 8
            block = b"x" * 65536
            end = min(time.monotonic() + CONNECTION_SECONDS, DEADLINE)
            while sent < size - 2 and time.monotonic() < end:
                piece = block[: min(len(block), size - 2 - sent)]
                send(conn, piece)
                sent += len(piece)
            send(conn, b"\"}")
        elif path == "/deep-json":
            body = deep_json()
            send(conn, head(200, "OK", {"Content-Type": "application/json"}, len(body)) + body)
        elif path.startswith("/status/"):
            code = int(path[len("/status/"):] or "500")
            body = b"no\n"
            send(conn, head(code, "Hostile", {"Content-Type": "text/plain"}, len(body)) + body)
        else:
            body = b"not found\n"
            send(conn, head(404, "Not Found", {"Content-Type": "text/plain"}, len(body)) + body)
    except OSError:
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def watch_stdin():
    try:
        while sys.stdin.buffer.read(1):
            pass
    except OSError:
        pass
    os._exit(0)


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.settimeout(1.0)
    print("PORT %d" % listener.getsockname()[1], flush=True)
    threading.Thread(target=watch_stdin, daemon=True).start()
    while time.monotonic() < DEADLINE:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve, args=(conn,), daemon=True).start()
    os._exit(0)


if __name__ == "__main__":
    main()
