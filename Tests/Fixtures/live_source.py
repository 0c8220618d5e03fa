#!/usr/bin/python3
"""A live MP3 station on loopback that logs every byte it sends, for the archive tests.

    live_source.py FILE.mp3 LOG_DIR [MAX_SECONDS]

Plays FILE (MP3 frames, looped) on a timeline that runs whatever listeners do: frame k is on the
air from T0 + k * duration and exists (an encoder has made it) once it is over, at T0 + (k + 1) *
duration. A listener gets a burst of the last second at once, then each frame as it exists (as an
encoder behind Icecast sends them). Prints "PORT <n>" and serves GET /live.mp3 (audio/mpeg, no ICY).

Logs in LOG_DIR: sent-<n>.bin, the bytes sent on connection n (whole frames only), and
sent-<n>.json, {"first_frame": k, "t0": T0, "frame_seconds": d}, so a test can tell the air time
of every byte it received.

sent-<n>.json also says when the connection's request arrived ("accepted", wall time).

Standard input commands (one a line):
  down SECONDS   close every listener now and answer 404 for SECONDS (the source is gone)
  crash SECONDS  close every listener and the listening socket now (connections are refused, as
                 when the server process dies) and listen again on the same port after SECONDS;
                 prints "UP <wall time>" when it listens again and adds that time to LOG_DIR/up.log
  empty N        close the next N requests at once without an answer (a connection that yields nothing)
Ends when MAX_SECONDS (default 300) have passed or standard input closes.
"""
import json
import os
import socket
import sys
import threading
import time

BURST_SECONDS = 1.0


def frames_of(data):
    rates = [44100, 48000, 32000]
    bitrates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
    frames, i = [], 0
    while i + 4 <= len(data):
        if data[i] == 0xFF and data[i + 1] & 0xE0 == 0xE0:
            b2 = data[i + 2]
            bitrate = bitrates[b2 >> 4] * 1000
            rate = rates[(b2 >> 2) & 3]
            length = 144 * bitrate // rate + ((b2 >> 1) & 1)
            if length > 4 and i + length <= len(data):
                frames.append(bytes(data[i:i + length]))
                i += length
                continue
        i += 1
    return frames, 1152.0 / rates[(frames[0][2] >> 2) & 3]


def main():
    path, log_dir = sys.argv[1], sys.argv[2]
    deadline = time.monotonic() + (float(sys.argv[3]) if len(sys.argv) > 3 else 300.0)
    with open(path, "rb") as f:
        frames, frame_seconds = frames_of(f.read())
    t0_wall = time.time()
    t0_mono = time.monotonic()
    state = {"down_until": 0.0, "epoch": 0, "connections": 0, "empty": 0}
    lock = threading.Lock()

    def on_air_index(now_mono):
        """The last frame that is over (made) by now; -1 before the first."""
        return int((now_mono - t0_mono) / frame_seconds) - 1

    def serve(conn):
        try:
            conn.settimeout(5)
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                request += chunk
            accepted = time.time()
            with lock:
                if state["empty"] > 0:
                    state["empty"] -= 1
                    return
                if time.monotonic() < state["down_until"]:
                    conn.sendall(b"HTTP/1.0 404 Not Found\r\nContent-Type: text/plain\r\n\r\nsource down\n")
                    return
                state["connections"] += 1
                number = state["connections"]
                epoch = state["epoch"]
            now = time.monotonic()
            first = max(0, on_air_index(now) + 1 - int(BURST_SECONDS / frame_seconds))
            with open(os.path.join(log_dir, "sent-%d.json" % number), "w") as meta:
                json.dump({"first_frame": first, "t0": t0_wall, "frame_seconds": frame_seconds, "accepted": accepted}, meta)
            log = open(os.path.join(log_dir, "sent-%d.bin" % number), "wb")
            conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: audio/mpeg\r\nicy-name: Live Source\r\n\r\n")
            k = first
            while time.monotonic() < deadline:
                with lock:
                    if state["epoch"] != epoch:
                        break
                due = on_air_index(time.monotonic())
                if k > due:
                    time.sleep(max(0.001, min(frame_seconds, t0_mono + (k + 1) * frame_seconds - time.monotonic())))
                    continue
                chunk = b"".join(frames[j % len(frames)] for j in range(k, due + 1))
                conn.sendall(chunk)
                log.write(chunk)
                log.flush()
                k = due + 1
            log.close()
        except OSError:
            pass
        finally:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def listen(port):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(16)
        sock.settimeout(0.2)
        return sock

    listening = {"socket": listen(0), "crash": None}
    port = listening["socket"].getsockname()[1]
    print("PORT %d" % port, flush=True)

    def commands():
        for line in sys.stdin:
            words = line.split()
            if len(words) == 2 and words[0] == "down":
                with lock:
                    state["down_until"] = time.monotonic() + float(words[1])
                    state["epoch"] += 1
                print("DOWN", flush=True)
            elif len(words) == 2 and words[0] == "empty":
                with lock:
                    state["empty"] += int(words[1])
            elif len(words) == 2 and words[0] == "crash":
                with lock:
                    state["epoch"] += 1
                    listening["crash"] = float(words[1])
                try:
                    listening["socket"].shutdown(socket.SHUT_RDWR)  # refuses from now on (Linux), not after accept's timeout
                except OSError:
                    pass
        os._exit(0)

    threading.Thread(target=commands, daemon=True).start()
    while time.monotonic() < deadline:
        with lock:
            crash, listening["crash"] = listening["crash"], None
        if crash is not None:
            listening["socket"].close()
            print("CRASHED", flush=True)
            time.sleep(crash)
            listening["socket"] = listen(port)
            up = time.time()
            with open(os.path.join(log_dir, "up.log"), "a") as log:
                log.write("%.6f\n" % up)
            print("UP %.6f" % up, flush=True)
        try:
            conn, _ = listening["socket"].accept()
        except socket.timeout:
            continue
        except OSError:  # shut down by a crash command: the next turn closes it
            time.sleep(0.01)
            continue
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
