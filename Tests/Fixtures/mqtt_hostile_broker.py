#!/usr/bin/python3
"""A broker that misbehaves when told to, for the MQTT plugin's tests. Bounded in time.

    mqtt_hostile_broker.py [MAX_SECONDS]

Listens on 127.0.0.1 (a free port) and prints "PORT <n>". Each client's CONNECT is answered with
a CONNACK that accepts it and printed as "connect <k>" (k counts from 1); a PINGREQ gets its
PINGRESP. Lines on standard input act on the latest connection:

  huge        a PUBLISH header that says 200 MiB, then up to 64 MiB of it as fast as the client
              reads; prints "sent <bytes>" when it is sent or the client closed
  malformed   a PINGRESP whose remaining length runs past 4 bytes

Ends when standard input closes (the test process died) or after MAX_SECONDS (default 300).
"""
import os
import socket
import sys
import threading

lock = threading.Lock()
latest = [None]
count = [0]


def say(text):
    with lock:
        print(text, flush=True)


def read_exactly(connection, size):
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_packet(connection):
    first = read_exactly(connection, 1)[0]
    length, multiplier = 0, 1
    for _ in range(4):
        byte = read_exactly(connection, 1)[0]
        length += (byte & 127) * multiplier
        multiplier *= 128
        if byte < 128:
            break
    return first >> 4, read_exactly(connection, length)


def serve(connection):
    try:
        kind, _ = read_packet(connection)
        if kind != 1:
            return
        connection.sendall(b"\x20\x02\x00\x00")
        with lock:
            count[0] += 1
            number = count[0]
            latest[0] = connection
        say("connect %d" % number)
        while True:
            kind, _ = read_packet(connection)
            if kind == 12:
                connection.sendall(b"\xd0\x00")
    except (EOFError, OSError):
        pass
    finally:
        connection.close()


def huge(connection):
    length = 200 * 1024 * 1024
    header = bytearray([0x30])
    while True:
        byte = length % 128
        length //= 128
        header.append(byte | 128 if length else byte)
        if not length:
            break
    sent = 0
    try:
        connection.sendall(bytes(header))
        chunk = b"\0" * 65536
        while sent < 64 * 1024 * 1024:
            connection.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass
    say("sent %d" % sent)


def main():
    limit = float(sys.argv[1]) if len(sys.argv) > 1 else 300
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    say("PORT %d" % listener.getsockname()[1])

    def accept():
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    threading.Timer(limit, lambda: os._exit(0)).start()
    for line in sys.stdin:
        with lock:
            connection = latest[0]
        if connection is None:
            continue
        if line.strip() == "huge":
            threading.Thread(target=huge, args=(connection,), daemon=True).start()
        elif line.strip() == "malformed":
            try:
                connection.sendall(b"\xd0\xff\xff\xff\xff\x7f")
            except OSError:
                pass


if __name__ == "__main__":
    main()
