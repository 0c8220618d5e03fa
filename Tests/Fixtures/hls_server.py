#!/usr/bin/env python3
"""A live HLS radio station on loopback, for oton's tests.

Encodes a tone with GStreamer once (AAC in ADTS, 44.1 kHz stereo), cuts it into
segments of --segment-seconds and serves a live media playlist whose window
slides with the wall clock, as a broadcaster's packager does:

  --shape packed   packed audio: each segment is ADTS frames after an ID3v2 tag
                   carrying the segment's PTS (PRIV com.apple.streaming.
                   transportStreamTimestamp, RFC 8216 3.4) and the current title
                   (TIT2/TPE1): the timed ID3 metadata of HLS radio.
  --shape ts       MPEG-TS segments cut from one mpegtsmux stream (no titles).
  --shape event    packed audio in an EVENT playlist that grows from segment 0 and, after
                   --event-segments segments, ends with #EXT-X-ENDLIST (a broadcast that ended).
  --shape ts-ffmpeg  MPEG-TS HLS made live by ffmpeg's hls muxer (-hls_segment_type mpegts): the
                   matrix's TS shape, on which a start stalled in one of four (issue 27.7).
  --shape fmp4     fMP4/CMAF HLS made live by ffmpeg (-hls_segment_type fmp4): an init
                   section (#EXT-X-MAP) and .m4s fragments, the window sliding as ffmpeg writes.
  --shape dash     live DASH made by ffmpeg's -f dash (a dynamic MPD with a SegmentTemplate).
  --shape dash-vod on-demand DASH: ffmpeg's -f dash run to its end first (a static MPD).
  --pool-seconds N the tone repeats every N s, after an #EXT-X-DISCONTINUITY (an ad break's shape)
  --ad-rate R      (packed) every other pass of the pool is encoded at R Hz: codec parameters
                   change at the discontinuity
  --extinf-attributes  #EXTINF lines carry title="T",artist="A" attributes instead of "A - T"
  --big-tag-mb N   (packed, event) every segment's ID3 tag also carries an APIC picture and a
                   PRIV frame of N MB together: the tag of a hostile or broken packager.
  --emsg V         (fmp4, dash) every media segment carries the current title as timed ID3 in an
                   `emsg` box of version V (0: Apple's scheme, 1: AOM's), after its `styp`
                   (ISO/IEC 23009-1 5.10.3.3): what CMAF packagers write and qtdemux skips.
  --emsg-hostile   (with --emsg) before that box, three a reader must survive: one cut short (its
                   strings run past its end), one of 2 MB, and one whose ID3 tag is garbage.
  --event-stream   (dash) the MPD's Period carries an EventStream of AOM's ID3 scheme: one Event per
                   title, at the time (since availabilityStartTime) /control/title set it.

Paths:
  /live.m3u8               the media playlist (window of 6 segments)
  /listen                  the same playlist served as text/html (a server that lies)
  /master.m3u8             a master playlist naming /low/live.m3u8 (64 kbit/s)
                           and /high/live.m3u8 (256 kbit/s); both serve the
                           same media, and each request is logged with its path
  /master-low-first.m3u8   the same variants, the low one first: hlsdemux starts on it and
                           switches up to the high one after its first segments (a variant switch)
  /seg/N.aac | /seg/N.ts   segment N (media sequence number)
  /live.mpd, /seg/...      (dash shapes) the MPD and the files ffmpeg wrote; (fmp4) /live.m3u8,
                           /init.mp4 and /seg/N.m4s are ffmpeg's files; (ts-ffmpeg) /live.m3u8 and /seg/N.ts
  /control/title?artist=A&title=T   segments that appear from now on carry this title
  /control/stop            answers 404 to everything from now on (a dead station)
  /control/start           serves again
Prints "READY <port>" once listening; logs "GET <path>" lines to stdout, each followed by
"AGENT <path> <User-Agent>".
"""
import argparse
import http.server
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse


def run_gst(pipeline):
    """gst-launch-1.0 with a deadline: a pipeline that hangs fails the fixture instead of the test run."""
    subprocess.run(["gst-launch-1.0", "-q"] + pipeline, check=True, timeout=60, stdout=subprocess.DEVNULL)


def encode_adts(seconds, path, rate=44100):
    buffers = int(seconds * rate / 1024) + 1
    run_gst(["audiotestsrc", "wave=sine", "freq=440", f"num-buffers={buffers}", "samplesperbuffer=1024", "!",
             f"audio/x-raw,rate={rate},channels=2", "!", "audioconvert", "!", "avenc_aac", "bitrate=64000", "!",
             "aacparse", "!", "audio/mpeg,stream-format=adts", "!", "filesink", f"location={path}"])


def adts_frames(data):
    frames, i = [], 0
    while i + 7 <= len(data):
        if data[i] != 0xFF or data[i + 1] & 0xF0 != 0xF0:
            raise ValueError(f"no ADTS sync at {i}")
        length = ((data[i + 3] & 3) << 11) | (data[i + 4] << 3) | (data[i + 5] >> 5)
        frames.append(data[i:i + length])
        i += length
    return frames


def syncsafe(n):
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def id3_frame(frame_id, payload):
    return frame_id.encode() + syncsafe(len(payload)) + b"\0\0" + payload


def id3_tag(pts_90khz, artist, title, bulk=b""):
    body = id3_frame("PRIV", b"com.apple.streaming.transportStreamTimestamp\0" + struct.pack(">Q", pts_90khz & ((1 << 33) - 1)))
    if title:
        body += id3_frame("TIT2", b"\x03" + title.encode() + b"\0")
    if artist:
        body += id3_frame("TPE1", b"\x03" + artist.encode() + b"\0")
    return b"ID3\x04\x00\x00" + syncsafe(len(body) + len(bulk)) + body + bulk


def bulk_frames(megabytes):
    """An APIC picture (a PNG signature, then filler) and a PRIV frame, megabytes in all."""
    if megabytes <= 0:
        return b""
    half = int(megabytes * 1024 * 1024) // 2
    png = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + b"\0" * (half - 16)
    picture = id3_frame("APIC", b"\x00image/png\0\x03cover\0" + png)
    private = id3_frame("PRIV", b"org.example.filler\0" + b"\xAB" * half)
    return picture + private


def emsg_box(version, scheme, event_id, data, timescale=1000, time=0, duration=0xFFFFFFFF, value=""):
    """An emsg box (ISO/IEC 23009-1 5.10.3.3) of version 0 (time is a delta) or 1 (time on the media timeline)."""
    strings = scheme.encode() + b"\0" + value.encode() + b"\0"
    if version == 0:
        body = b"\0\0\0\0" + strings + struct.pack(">IIII", timescale, time, duration, event_id) + data
    else:
        body = b"\1\0\0\0" + struct.pack(">IQII", timescale, time, duration, event_id) + strings + data
    return struct.pack(">I", 8 + len(body)) + b"emsg" + body


ID3_SCHEMES = {0: "https://developer.apple.com/streaming/emsg-id3", 1: "https://aomedia.org/emsg/ID3"}


def title_id3(artist, title):
    body = id3_frame("TIT2", b"\x03" + title.encode() + b"\0") + id3_frame("TPE1", b"\x03" + artist.encode() + b"\0")
    return b"ID3\x04\x00\x00" + syncsafe(len(body)) + body


def hostile_emsgs(version):
    scheme = ID3_SCHEMES[version]
    whole = emsg_box(version, scheme, 900001, title_id3("Cut", "Short"))
    cut = struct.pack(">I", 8 + 12) + b"emsg" + whole[8:20]  # its strings and fields run past its end
    huge = emsg_box(version, scheme, 900002, title_id3("Huge", "Box") + b"\xAB" * (2 * 1024 * 1024))
    garbage = emsg_box(version, scheme, 900003, b"ID3\x04\x00\x00\x7f\x7f\x7f\x7f" + os.urandom(64))
    return cut + huge + garbage


def with_emsg(segment, boxes):
    """The segment with `boxes` after its styp (or first, when it has none)."""
    size, kind = struct.unpack(">I4s", segment[:8])
    at = size if kind == b"styp" else 0
    return segment[:at] + boxes + segment[at:]


class Station:
    window = 6

    def __init__(self, shape, segment_seconds, pool_seconds, workdir, big_tag_mb=0, event_segments=0, ad_rate=0):
        self.shape = shape
        self.extinf_attributes = False
        self.bulk = bulk_frames(big_tag_mb)
        self.event_segments = event_segments
        self.lock = threading.Lock()
        self.titles = {}  # sequence number -> (artist, title), fixed when the segment appears
        self.current = ("Artist A", "Song One")
        self.serving = True
        if shape in ("packed", "event"):
            path = os.path.join(workdir, "tone.aac")
            encode_adts(pool_seconds, path)
            frames = adts_frames(open(path, "rb").read())
            per = max(1, round(segment_seconds * 44100 / 1024))
            self.frames_per_segment = per
            self.pool = [b"".join(frames[k:k + per]) for k in range(0, len(frames) - per + 1, per)]
            self.durations = [per * 1024 / 44100] * len(self.pool)
            # Every other pass of the pool is an "ad break" encoded at another rate (codec parameters change).
            self.ad_pool = []
            if ad_rate:
                path = os.path.join(workdir, "ad.aac")
                encode_adts(pool_seconds, path, ad_rate)
                frames = adts_frames(open(path, "rb").read())
                per_ad = max(1, round(segment_seconds * ad_rate / 1024))
                self.ad_pool = [b"".join(frames[k:k + per_ad]) for k in range(0, len(frames) - per_ad + 1, per_ad)][:len(self.pool)]
        else:
            # One continuous MPEG-TS cut at packet boundaries: mpegtsmux repeats PAT and PMT every
            # 100 ms, so every segment can start a listener, as a packager's segments do.
            path = os.path.join(workdir, "tone.ts")
            buffers = int(pool_seconds * 44100 / 1024) + 1
            run_gst(["audiotestsrc", "wave=sine", "freq=440", f"num-buffers={buffers}", "samplesperbuffer=1024", "!",
                     "audio/x-raw,rate=44100,channels=2", "!", "audioconvert", "!", "avenc_aac", "bitrate=64000", "!",
                     "aacparse", "!", "mpegtsmux", "!", "filesink", f"location={path}"])
            data = open(path, "rb").read()
            packets = len(data) // 188
            count = max(1, int(pool_seconds / segment_seconds))
            per = packets // count
            self.pool = [data[k * per * 188:(k + 1) * per * 188] for k in range(count)]
            self.durations = [buffers * 1024 / 44100 / count] * count
        # The window slides at the pace the audio plays, so a listener neither starves nor falls behind.
        self.segment_seconds = sum(self.durations) / len(self.durations)
        # Start with a full window already published, as a running station has.
        self.started = time.monotonic() - self.window * segment_seconds

    def newest(self):
        return int((time.monotonic() - self.started) / self.segment_seconds)

    def playlist(self):
        newest = self.newest()
        first = max(0, newest - self.window + 1)
        ended = False
        if self.shape == "event":
            # An event playlist keeps every segment from the first; it ends after event_segments.
            first = 0
            ended = newest >= self.event_segments - 1
            newest = min(newest, self.event_segments - 1)
        with self.lock:
            for number in range(first, newest + 1):
                self.titles.setdefault(number, self.current)
        ext = "ts" if self.shape == "ts" else "aac"
        lines = ["#EXTM3U", "#EXT-X-VERSION:3", f"#EXT-X-TARGETDURATION:{int(self.segment_seconds + 0.999)}",
                 f"#EXT-X-MEDIA-SEQUENCE:{first}"]
        if self.shape == "event":
            lines.append("#EXT-X-PLAYLIST-TYPE:EVENT")
        for number in range(first, newest + 1):
            index = number % len(self.pool)
            if index == 0 and number > 0:
                lines.append("#EXT-X-DISCONTINUITY")  # the pool starts again: timestamps jump back
            artist, title = self.titles[number]
            if self.extinf_attributes:
                lines.append(f'#EXTINF:{self.durations[index]:.3f},title="{title}",artist="{artist}"')
            else:
                lines.append(f"#EXTINF:{self.durations[index]:.3f},{artist} - {title}")
            lines.append(f"seg/{number}.{ext}")
        if ended:
            lines.append("#EXT-X-ENDLIST")
        return ("\n".join(lines) + "\n").encode()

    def segment(self, number):
        if number > self.newest() or (self.shape == "event" and number >= self.event_segments):
            return None
        body = self.pool[number % len(self.pool)]
        if getattr(self, "ad_pool", None) and (number // len(self.pool)) % 2 == 1:
            body = self.ad_pool[min(number % len(self.pool), len(self.ad_pool) - 1)]
        if self.shape != "ts":
            with self.lock:
                artist, title = self.titles.get(number, self.current)
            pts = int(number * self.frames_per_segment * 1024 * 90000 / 44100)
            body = id3_tag(pts, artist, title, self.bulk) + body
        return body


def die_with_parent():
    """The test kills this script with SIGKILL: ffmpeg gets SIGKILL too (PR_SET_PDEATHSIG)."""
    import ctypes
    import signal
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


class FFmpegStation:
    """MPEG-TS or fMP4 HLS, or DASH, written by ffmpeg into workdir; the server hands out its files."""

    def __init__(self, shape, segment_seconds, workdir, emsg=None, emsg_hostile=False, event_stream=False):
        self.shape = shape
        self.workdir = workdir
        self.serving = True
        self.lock = threading.Lock()
        self.current = ("Artist A", "Song One") if emsg is not None or event_stream else ("", "")
        self.emsg = emsg
        self.emsg_hostile = emsg_hostile
        self.event_stream = event_stream
        self.title_id = 1
        self.served = {}
        self.events = [(time.time(), *self.current)]
        os.makedirs(os.path.join(workdir, "seg"), exist_ok=True)
        tone = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-ac", "2", "-c:a", "aac", "-b:a", "64k"]
        if shape == "fmp4":
            out = ["-f", "hls", "-hls_time", str(segment_seconds), "-hls_list_size", "6",
                   "-hls_segment_type", "fmp4", "-hls_flags", "delete_segments+omit_endlist",
                   "-hls_fmp4_init_filename", "init.mp4", "-hls_base_url", "seg/", "-hls_segment_filename", os.path.join(workdir, "seg", "%d.m4s"),
                   os.path.join(workdir, "live.m3u8")]
        elif shape == "ts-ffmpeg":
            out = ["-f", "hls", "-hls_time", str(segment_seconds), "-hls_list_size", "6",
                   "-hls_flags", "delete_segments+omit_endlist", "-hls_base_url", "seg/",
                   "-hls_segment_filename", os.path.join(workdir, "seg", "%d.ts"), os.path.join(workdir, "live.m3u8")]
        else:
            out = ["-f", "dash", "-seg_duration", str(segment_seconds), "-use_template", "1", "-use_timeline", "1",
                   "-init_seg_name", "seg/init-$RepresentationID$.m4s",
                   "-media_seg_name", "seg/chunk-$RepresentationID$-$Number%05d$.m4s"]
            if shape == "dash":
                out += ["-window_size", "6", "-extra_window_size", "4"]
            out.append(os.path.join(workdir, "live.mpd"))
        if shape == "dash-vod":
            # On demand: 8 s written to the end before the server listens (a static MPD).
            subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y"] + tone[:4] + ["-t", "8"] + tone[4:] + out,
                           check=True, timeout=60)
            self.process = None
            return
        # Live: at the pace of the clock, with a few segments published before the listener comes.
        self.process = subprocess.Popen(["ffmpeg", "-nostdin", "-loglevel", "error", "-re", "-y"] + tone + out,
                                        preexec_fn=die_with_parent)
        first = os.path.join(workdir, "live.mpd" if shape.startswith("dash") else "live.m3u8")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (os.path.exists(first) and len(os.listdir(os.path.join(workdir, "seg"))) >= 4):
            time.sleep(0.1)

    def file(self, path):
        full = os.path.normpath(os.path.join(self.workdir, path.lstrip("/")))
        if not full.startswith(self.workdir + os.sep) or not os.path.isfile(full):
            return None
        with open(full, "rb") as f:
            body = f.read()
        if self.emsg is not None and path.endswith(".m4s") and "init" not in path:
            with self.lock:
                # A segment keeps the title it was first served with (as a packager's file would).
                if path not in self.served:
                    artist, title = self.current
                    boxes = emsg_box(self.emsg, ID3_SCHEMES[self.emsg], self.title_id, title_id3(artist, title))
                    self.served[path] = (hostile_emsgs(self.emsg) if self.emsg_hostile else b"") + boxes
                boxes = self.served[path]
            body = with_emsg(body, boxes)
        elif self.event_stream and path.endswith(".mpd"):
            body = self.with_event_stream(body)
        return body

    def set_title(self, artist, title):
        with self.lock:
            self.current = (artist, title)
            self.title_id += 1
            self.events.append((time.time(), artist, title))

    def with_event_stream(self, mpd):
        """The MPD with an EventStream (AOM's ID3 scheme, ms) in its Period: one Event per title set."""
        import base64
        import datetime
        import re
        text = mpd.decode()
        start = re.search(r'availabilityStartTime="([^"]+)"', text)
        origin = datetime.datetime.fromisoformat(start.group(1).replace("Z", "+00:00")).timestamp() if start else self.events[0][0]
        with self.lock:
            events = list(self.events)
        lines = [f'<EventStream schemeIdUri="{ID3_SCHEMES[1]}" timescale="1000">']
        for number, (when, artist, title) in enumerate(events):
            at = max(0, int((when - origin) * 1000)) if number else 0
            data = base64.b64encode(title_id3(artist, title)).decode()
            lines.append(f'<Event presentationTime="{at}" id="{number + 1}">{data}</Event>')
        lines.append("</EventStream>")
        return re.sub(r"(<Period[^>]*>)", lambda m: m.group(1) + "\n" + "\n".join(lines), text, count=1).encode()

    def stop(self):
        if self.process:
            self.process.kill()
            self.process.wait()


def master_playlist(low_first=False):
    high = b"#EXT-X-STREAM-INF:BANDWIDTH=256000,CODECS=\"mp4a.40.2\"\nhigh/live.m3u8\n"
    low = b"#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS=\"mp4a.40.2\"\nlow/live.m3u8\n"
    return b"#EXTM3U\n" + (low + high if low_first else high + low)


def make_handler(station, content_type_lies):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body=b"", content_type="text/plain"):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            path = url.path
            print(f"GET {path}", flush=True)
            print(f"AGENT {path} {self.headers.get('User-Agent', '')}", flush=True)
            if path.startswith("/control/"):
                query = urllib.parse.parse_qs(url.query)
                if path == "/control/title" and isinstance(station, FFmpegStation):
                    station.set_title(query.get("artist", [""])[0], query.get("title", [""])[0])
                elif path == "/control/title":
                    with station.lock:
                        station.current = (query.get("artist", [""])[0], query.get("title", [""])[0])
                elif path == "/control/stop":
                    station.serving = False
                elif path == "/control/start":
                    station.serving = True
                return self.send(200, b"ok\n")
            if not station.serving:
                return self.send(404, b"off air\n")
            if isinstance(station, FFmpegStation):
                body = station.file(path)
                if body is None:
                    return self.send(404)
                kinds = {".m3u8": "application/vnd.apple.mpegurl", ".mpd": "application/dash+xml",
                         ".mp4": "audio/mp4", ".m4s": "audio/mp4", ".ts": "video/mp2t"}
                return self.send(200, body, kinds.get(os.path.splitext(path)[1], "application/octet-stream"))
            playlist_type = "text/plain" if content_type_lies else "application/vnd.apple.mpegurl"
            if path == "/master.m3u8":
                return self.send(200, master_playlist(), playlist_type)
            if path == "/master-low-first.m3u8":
                return self.send(200, master_playlist(low_first=True), playlist_type)
            if path == "/listen":
                return self.send(200, station.playlist(), "text/html; charset=utf-8")
            if path.endswith("/live.m3u8") or path == "/live.m3u8":
                return self.send(200, station.playlist(), playlist_type)
            if "/seg/" in path:
                name = path.rsplit("/", 1)[1]
                try:
                    number = int(name.split(".")[0])
                except ValueError:
                    return self.send(404)
                body = station.segment(number)
                if body is None:
                    return self.send(404)
                return self.send(200, body, "audio/aac" if station.shape == "packed" else "video/mp2t")
            self.send(404)

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--shape", choices=["packed", "ts", "ts-ffmpeg", "event", "fmp4", "dash", "dash-vod"], default="packed")
    parser.add_argument("--big-tag-mb", type=float, default=0, help="bulk ID3 frames of this many MB in every segment")
    parser.add_argument("--emsg", type=int, choices=[0, 1], help="(fmp4, dash) timed ID3 titles in emsg boxes of this version")
    parser.add_argument("--emsg-hostile", action="store_true", help="(with --emsg) a cut, a huge and a garbage emsg first")
    parser.add_argument("--event-stream", action="store_true", help="(dash) the titles as an MPD EventStream")
    parser.add_argument("--event-segments", type=int, default=8, help="(event) segments before #EXT-X-ENDLIST")
    parser.add_argument("--segment-seconds", type=float, default=1.0)
    parser.add_argument("--extinf-attributes", action="store_true",
                        help='(packed, ts) #EXTINF lines as title="T",artist="A" instead of "A - T"')
    parser.add_argument("--ad-rate", type=int, default=0, help="(packed) every other pass of the pool is encoded at this sample rate")
    parser.add_argument("--pool-seconds", type=float, default=60.0)
    parser.add_argument("--content-type-lies", action="store_true", help="serve playlists as text/plain")
    parser.add_argument("--max-seconds", type=float, default=300, help="exit after this long (a test that died)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="oton-hls-") as workdir:
        if args.shape in ("ts-ffmpeg", "fmp4", "dash", "dash-vod"):
            station = FFmpegStation(args.shape, args.segment_seconds, workdir, args.emsg, args.emsg_hostile, args.event_stream)
        else:
            station = Station(args.shape, args.segment_seconds, args.pool_seconds, workdir, args.big_tag_mb, args.event_segments, args.ad_rate)
            station.extinf_attributes = args.extinf_attributes
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(station, args.content_type_lies))
        server.daemon_threads = True
        threading.Timer(args.max_seconds, server.shutdown).start()
        print(f"READY {server.server_address[1]}", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            if isinstance(station, FFmpegStation):
                station.stop()


if __name__ == "__main__":
    sys.exit(main())
