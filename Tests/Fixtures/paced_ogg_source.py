#!/usr/bin/python3
"""A live chained-Ogg station on loopback (Vorbis or Opus, any bitrate), paced by the pages' own times.

    paced_ogg_source.py FILE.ogg PAST_SECONDS

FILE is a chained Ogg stream (one logical stream a song, each with its own title in its comment
header). The station's timeline began PAST_SECONDS before the script started: a listener gets at once
every page that exists by then (as Icecast's burst gives a low-bitrate station's last minute), then
each page when its last sample is due. Prints "PORT <n>", serves any GET with audio/ogg, keeps a
connection open (quiet) after the file's end. Ends when standard input closes.
"""
import socket
import struct
import sys
import threading
import time


def pages_of(data):
    """(page bytes, end time in seconds on the station's timeline) for every page."""
    pages, offset, rates, chain_start, last_end = [], 0, {}, 0.0, 0.0
    while offset + 27 <= len(data) and data[offset:offset + 4] == b"OggS":
        flags = data[offset + 5]
        granule = struct.unpack_from("<q", data, offset + 6)[0]
        serial = struct.unpack_from("<I", data, offset + 14)[0]
        count = data[offset + 26]
        table = data[offset + 27:offset + 27 + count]
        length = 27 + count + sum(table)
        payload = data[offset + 27 + count:offset + length]
        if flags & 0x02:  # beginning of a logical stream: a new song starts where the last one ended
            chain_start = last_end
            if payload.startswith(b"OpusHead"):
                rates[serial] = 48000
            elif payload.startswith(b"\x01vorbis"):
                rates[serial] = struct.unpack_from("<I", payload, 12)[0]
            else:
                rates[serial] = 44100
        end = last_end
        if granule > 0 and serial in rates:
            end = max(last_end, chain_start + granule / rates[serial])
        last_end = end
        pages.append((data[offset:offset + length], end))
        offset += length
    return pages


def main():
    pages = pages_of(open(sys.argv[1], "rb").read())
    origin = time.monotonic() - float(sys.argv[2])
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    print("PORT %d" % listener.getsockname()[1], flush=True)

    def serve(connection):
        try:
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = connection.recv(4096)
                if not chunk:
                    return
                request += chunk
            connection.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: audio/ogg\r\nicy-name: Paced FM\r\n\r\n")
            for page, end in pages:
                wait = origin + end - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                connection.sendall(page)
            while connection.recv(4096):
                pass
        except OSError:
            pass
        finally:
            connection.close()

    def accept():
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()


main()
