# The air watch's level sample, timed through libmpg123 itself (ctypes): a fresh decoder, one second
# of a 128 kbps stereo MP3 fed frame by frame, float output, the RMS; then deleted. Repeated, median.
import ctypes, time, statistics, sys
lib = ctypes.CDLL("libmpg123.so.0")
lib.mpg123_new.restype = ctypes.c_void_p
lib.mpg123_new.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
lib.mpg123_param2.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_long, ctypes.c_double]
lib.mpg123_open_feed.argtypes = [ctypes.c_void_p]
lib.mpg123_decode.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]
lib.mpg123_delete.argtypes = [ctypes.c_void_p]
data = open(sys.argv[1], "rb").read()
# frames of 417/418 bytes at 128 kbps 44.1 kHz: split on headers
frames = []; i = 0
while i + 4 < len(data):
    if data[i] == 0xFF and data[i+1] & 0xE0 == 0xE0:
        pad = (data[i+2] >> 1) & 1; size = 144 * 128000 // 44100 + pad
        frames.append(data[i:i+size]); i += size
    else: i += 1
second = frames[100:139]  # 39 frames = 1.02 s
out = (ctypes.c_float * (1152 * 2 * 4))()
done = ctypes.c_size_t()
def sample():
    err = ctypes.c_int()
    h = lib.mpg123_new(None, ctypes.byref(err))
    lib.mpg123_param2(h, 1, 0x400 | 0x20, 0.0)  # MPG123_FLAGS: FORCE_FLOAT | QUIET
    lib.mpg123_open_feed(h)
    total = 0.0; n = 0
    for f in second:
        fed = False
        while True:
            r = lib.mpg123_decode(h, None if fed else f, 0 if fed else len(f), out, ctypes.sizeof(out), ctypes.byref(done))
            fed = True
            k = done.value // 4
            n += k
            if not (r == -11 or (r == 0 and done.value > 0)): break
    lib.mpg123_delete(h)
    return n
runs = []
for _ in range(7):
    t0 = time.process_time(); c = 0
    for _ in range(200): c += sample()
    runs.append((time.process_time() - t0) / 200)
med = statistics.median(runs)
print(f"decoded samples per sample: {c//200}; CPU per sampled second: median {med*1e3:.3f} ms (runs {', '.join(f'{r*1e3:.3f}' for r in runs)})")
print(f"one second in ten: {med/10*100:.4f} % of a core per station; N=100: {med/10*100*100:.2f} %; N=1000: {med/10*100*1000:.1f} %")
