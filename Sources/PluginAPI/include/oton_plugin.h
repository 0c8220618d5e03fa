/*
 * oton_plugin.h — the whole contract between the Oton host and a plugin.
 *
 * A plugin is a shared library that exports ONE function, oton_plugin_entry(),
 * returning a constant descriptor. Everything else travels through the
 * structures below. This header needs only the C standard headers and is
 * valid C99; it is also imported by Swift as the PluginAPI module.
 *
 * Rules that hold everywhere (read docs/plugin-guide.md for the prose):
 *
 *  VERSIONS   OTON_ABI_MAJOR must match exactly. A plugin whose minor is
 *             higher than the host's is refused; an older minor loads.
 *             The host table carries the host's version too, so a plugin
 *             can check what the host offers.
 *  SIZES      Every struct that crosses the boundary starts with
 *             `uint32_t struct_size`, set by whoever fills the struct to
 *             sizeof() of the struct as that side was compiled. A reader
 *             uses a field only if offsetof(field) + sizeof(field) <=
 *             struct_size (see OTON_HAS_FIELD). Fields are only ever appended:
 *             never reordered, never removed, never retyped. A reader refuses
 *             a struct smaller than its ABI 1.0 size (OTON_*_SIZE_1_0 below),
 *             never one smaller than its own sizeof(): a struct from an older
 *             minor is shorter, and its missing fields read as absent.
 *  STRINGS    All strings are NUL-terminated UTF-8. A NULL string pointer
 *             means "unknown / not given" and is always allowed where a
 *             string is optional.
 *  OWNERSHIP  A pointer handed to a callback is BORROWED for the duration
 *             of that call only: copy what you keep. The host never frees
 *             anything a plugin owns and vice versa; where one side writes
 *             into the other's memory, the buffer and its size are passed.
 *  THREADING  The host calls one plugin instance from one thread at a time
 *             (its own serial mailbox), never from a GStreamer streaming
 *             thread, and never two calls into the same instance at once.
 *             Host functions marked ANY THREAD may be called from any thread
 *             the plugin owns, including from inside a callback.
 *  ERRORS     Nothing may unwind across the boundary (no C++ exceptions,
 *             no Swift errors, no longjmp). Return a status and a message.
 *  LIFETIME   The library is loaded once (RTLD_NOW | RTLD_LOCAL) and never
 *             unloaded. Disabling a plugin destroys its instance only.
 */
#ifndef OTON_PLUGIN_H
#define OTON_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Versions and the entry point                                             */
/* ------------------------------------------------------------------------ */

#define OTON_ABI_MAJOR 1u
#define OTON_ABI_MINOR 6u /* 1.1: oton_host.select_media_taps; 1.2: station requests, oton_request.station;
                              1.3: oton_host.run_command, oton_host.select_pcm_format;
                              1.4: oton_host.language, oton_host.translate;
                              1.5: oton_host.read_json, oton_json_value (config and arguments by path);
                              1.6: oton_plugin_descriptor.settings, oton_setting_decl (declared settings),
                                   oton_host.write_json_string (a JSON string literal for the plugin),
                                   oton_plugin_descriptor.filter (an in-place filter of the sound heard) */

/* The one symbol the host looks up with dlsym(). */
#define OTON_PLUGIN_ENTRY_SYMBOL "oton_plugin_entry"

#if defined(__GNUC__) || defined(__clang__)
#define OTON_EXPORT __attribute__((visibility("default")))
#else
#define OTON_EXPORT
#endif

/* True when `ptr` (a pointer to a struct starting with struct_size) is large
 * enough to contain `field`. Use it before reading any field that was added
 * after the first version of a struct. */
#define OTON_HAS_FIELD(ptr, type, field)                                      \
    ((ptr) != NULL &&                                                         \
     (size_t)(ptr)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Status codes returned across the boundary. */
typedef int32_t oton_status;
#define OTON_OK                 0
#define OTON_ERR_INVALID        (-1) /* a bad argument or malformed struct */
#define OTON_ERR_UNSUPPORTED    (-2) /* unknown kind, request or command */
#define OTON_ERR_BUSY           (-3) /* the name or resource is taken; nothing done */
#define OTON_ERR_FAILED         (-4) /* the operation ran and failed; see message */

/* Log levels for oton_host.log. */
typedef uint32_t oton_log_level;
#define OTON_LOG_DEBUG   0u
#define OTON_LOG_INFO    1u
#define OTON_LOG_WARNING 2u
#define OTON_LOG_ERROR   3u

/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

/* Core event kinds, fixed forever. Kinds published by plugins are
 * namespaced strings (reverse-DNS, e.g. "org.oton.artwork.ready") that the
 * host maps to integers >= OTON_EVENT_FIRST_DYNAMIC once per process with
 * oton_host.event_kind(). A receiver ignores any kind it does not know. */
typedef uint32_t oton_event_kind;
#define OTON_EVENT_TRACK         1u /* payload: oton_track           name "track" */
#define OTON_EVENT_STATE         2u /* payload: oton_state_info      name "state" */
#define OTON_EVENT_VOLUME        3u /* payload: oton_volume_info     name "volume" */
#define OTON_EVENT_DROPPED       4u /* payload: oton_drop_info       name "dropped" */
#define OTON_EVENT_FIRST_DYNAMIC 1024u

/* The keys of the core kinds' fields: the canonical text form of every
 * event value (what `oton play --events` prints, what crosses to an isolated
 * plugin, what the control socket's `status` reads). A plugin that reads
 * `fields` uses these names, never its own spelling. Values are UTF-8 text;
 * numbers in decimal. A key may be absent when its value is unknown. */
/* OTON_EVENT_TRACK (the oton_track members, plus what only the fields carry): */
#define OTON_FIELD_SEQUENCE           "sequence"           /* decimal, see oton_track.sequence */
#define OTON_FIELD_BREAK              "break"              /* "1" on a break (ads, jingle, gap); absent otherwise */
#define OTON_FIELD_TITLE              "title"
#define OTON_FIELD_ARTIST             "artist"
#define OTON_FIELD_RAW_TITLE          "raw_title"
#define OTON_FIELD_STATION            "station"
#define OTON_FIELD_GENRE              "genre"
#define OTON_FIELD_BITRATE            "bitrate"            /* bits per second */
#define OTON_FIELD_CODEC              "codec"
#define OTON_FIELD_ARTWORK_URL        "artwork_url"
#define OTON_FIELD_STREAM_URL         "stream_url"
#define OTON_FIELD_STATION_LOGO_URL   "station_logo_url"   /* fields only: the logo the status API names */
#define OTON_FIELD_STATION_HOMEPAGE   "station_homepage"   /* fields only: plugins.json's homepage */
#define OTON_FIELD_STATION_STATUS_URL "station_status_url" /* fields only: present when the station has a status API */
#define OTON_FIELD_STATION_COUNT      "station_count"      /* fields only: how many stations next/previous cycle through */
#define OTON_FIELD_TAG_MONO_NS        "tag_mono_ns"        /* fields only: CLOCK_MONOTONIC when the stream's tag was read */
#define OTON_FIELD_DURATION           "duration"           /* fields only: the track's length in seconds, when its source knows it */
#define OTON_FIELD_TITLE_SOURCE       "title_source"       /* fields only, present with a title: where it came from: "stream" (the
                                                            * stream's metadata), "station-api" (plugins.json's status_url),
                                                            * "provider:<rule>" (a now-playing provider rule), "recognised"
                                                            * (matched from the audio). Only "stream" is the station's own word */
/* OTON_EVENT_STATE: */
#define OTON_FIELD_STATE              "state"              /* idle|connecting|playing|buffering|paused|stopped|error */
#define OTON_FIELD_BUFFERING_PERCENT  "buffering_percent"
#define OTON_FIELD_RETRY_ATTEMPT      "retry_attempt"      /* present only while a reconnect is under way */
#define OTON_FIELD_RETRY_IN_MS        "retry_in_ms"        /* fields only, while waiting to reconnect: milliseconds until the attempt */
#define OTON_FIELD_RETRY_MAX          "retry_max"          /* fields only, with retry_in_ms: attempts in all; absent when unlimited */
#define OTON_FIELD_ERROR_KIND         "error_kind"
#define OTON_FIELD_ERROR_MESSAGE      "error_message"
#define OTON_FIELD_ERROR_SUGGESTION   "error_suggestion"
/* OTON_EVENT_VOLUME: */
#define OTON_FIELD_VOLUME             "volume"             /* 0.000 … OTON_VOLUME_MAX, three decimals */
#define OTON_FIELD_VOLUME_PERCENT     "volume_percent"     /* the same as a whole percentage */
/* OTON_EVENT_DROPPED: */
#define OTON_FIELD_PLUGIN_ID          "plugin_id"
#define OTON_FIELD_MEDIA_TAP          "media_tap"
#define OTON_FIELD_DROPPED_EVENTS     "dropped_events"
#define OTON_FIELD_DROPPED_BYTES      "dropped_bytes"

/* The output volume's range: 0.0 is silent, 1.0 full, above 1.0 amplifies up
 * to this ceiling. Requests outside the range are clamped to it. */
#define OTON_VOLUME_MAX 1.5

/* The largest Ogg comment header (Vorbis "\3vorbis", "OpusTags", FLAC's
 * VORBIS_COMMENT block) oton reads or keeps, in bytes. The host reads no title
 * from a larger one; the file sink records a larger one as an empty comment
 * header (its tags are written anew when the file is finished). */
#define OTON_OGG_COMMENT_MAX_BYTES 262144

/* The desktop's one id for oton: the installed desktop file is OTON_DESKTOP_APP_ID ".desktop"
 * (data/, installed by scripts/install), the icons and metainfo carry it, the window's
 * GApplication owns it on the session bus, and MPRIS's DesktopEntry and the notifications'
 * desktop-entry hint say it. A constant string; nothing to free. */
#define OTON_DESKTOP_APP_ID "org.oton.Oton"

/* Well-known names of events that the bundled plugins publish. Their
 * payload is NULL; the data is in the key/value fields, listed here. */
#define OTON_EVENT_NAME_ARTWORK_READY     "org.oton.artwork.ready"     /* path, url, type (cover|station-logo|default), color (#RRGGBB), title */
#define OTON_EVENT_NAME_SLEEP_SET         "org.oton.sleep.set"         /* seconds, mode (duration|after-track), action (stop|pause) */
#define OTON_EVENT_NAME_SLEEP_CANCELLED   "org.oton.sleep.cancelled"   /* (none) */
#define OTON_EVENT_NAME_SLEEP_FIRED       "org.oton.sleep.fired"       /* action */
#define OTON_EVENT_NAME_RECORDING_STARTED "org.oton.recording.started" /* path, title, artist */
#define OTON_EVENT_NAME_RECORDING_DONE    "org.oton.recording.finished"/* path ("" when not kept), seconds, bytes, complete (true|false),
                                                                        status (complete|incomplete|dropped|failed), reason (English),
                                                                        reason_code (too-short|partial-dropped|write-failed|not-wished|
                                                                        wish-not-kept|""), min_seconds, name (the file's name relative
                                                                        to the output folder, kept or not), sequence (the track's, when
                                                                        it had one) */
#define OTON_EVENT_NAME_SHARE             "org.oton.share"             /* text, links (newline separated) */
#define OTON_EVENT_NAME_RECORDING_STOPPED "org.oton.file-sink.stopped" /* reason (write-failed|max-size|max-duration|disk-full), message,
                                                                        error (true|false): the recording stopped for good */
#define OTON_EVENT_NAME_NOW_PLAYING_READY "org.oton.now-playing.ready" /* bus_name (the MPRIS name owned; absent without MPRIS) */
#define OTON_EVENT_NAME_CAST              "org.oton.cast.state"        /* renderer (the UPnP renderer's name, cleaned), state (casting|stopped|
                                                                        failed), url (the stream handed over), message (why, when failed):
                                                                        published by the UPnP plugin when casting starts, moves to another
                                                                        station, stops or fails; local playback is paused while casting */
/* Published by the host (not a plugin) when a track that matches the user's wishlist starts: */
#define OTON_EVENT_NAME_WISH_HEARD        "org.oton.wish.heard"        /* station, artist, title, sequence (the track event's), wish
                                                                        (the pattern that matched), identity (folded "artist - title"),
                                                                        from_start (false for a connection's first track: heard from
                                                                        its middle);
                                                                        `oton record --wishlist` adds keep (true|false) and, when false,
                                                                        why (kept-before|being-kept): a file sink in wishlist mode keeps
                                                                        exactly the tracks announced with keep=true */
/* 1.6, published by the file sink's air watch (`oton record`), per station: */
#define OTON_EVENT_NAME_ALERT             "org.oton.alert"             /* station, kind (dead-air|dead-air-over|title-stall|
                                                                        format-change), details (one line for people), seconds
                                                                        (how long the condition has lasted; absent for format-change),
                                                                        level_dbfs (dead air: the sampled level) */
#define OTON_EVENT_NAME_AIR               "org.oton.station.air"       /* station, level_dbfs (the RMS of the last sampled second,
                                                                        "-inf" for digital silence; absent for a codec not sampled),
                                                                        silence_seconds, title_age_seconds (absent before a title);
                                                                        after every sampled second (about every 10 s) */
/* Published by the host when timeshift playback moved in the ring (a seek or `live`, from the
 * control socket, the terminal, a plugin's run_command) — not as it plays on. Hosts before this
 * header never publish it: a plugin reads `status` for the position and treats this as a hint. */
#define OTON_EVENT_NAME_TIMESHIFT_MOVED   "org.oton.timeshift.moved"   /* behind_live_ms (0 at live), timeshift_held_ms (what the
                                                                        ring holds), timeshift_limit_ms (the most it holds), all
                                                                        decimal milliseconds, as `status` has them */
/* Published by the song recognition plugin (org.oton.recognition) on a station whose stream names no
 * song; the host shows it only while the stream still names none, and a stream title always wins: */
#define OTON_EVENT_NAME_TITLE_SUGGESTED   "org.oton.title.suggested"   /* station (the track event's, which the suggestion is for), artist
                                                                        (absent when unknown), title ("" withdraws the last suggestion:
                                                                        the song is no longer recognised), title_source (recognised) */

/* The field keys of the events above, one constant each: publishers and readers (the host, the
 * bundled plugins, third parties) spell a key only through these. The keys themselves are those the
 * events always had: these are names for them, and no binary of any minor sees a difference. */
#define OTON_FIELD_PATH               "path"
#define OTON_FIELD_URL                "url"
#define OTON_FIELD_TYPE               "type"
#define OTON_FIELD_COLOR              "color"
#define OTON_FIELD_SECONDS            "seconds"
#define OTON_FIELD_MODE               "mode"
#define OTON_FIELD_ACTION             "action"
#define OTON_FIELD_BYTES              "bytes"
#define OTON_FIELD_COMPLETE           "complete"
#define OTON_FIELD_STATUS             "status"
#define OTON_FIELD_REASON             "reason"
#define OTON_FIELD_REASON_CODE        "reason_code"
#define OTON_FIELD_MIN_SECONDS        "min_seconds"
#define OTON_FIELD_NAME               "name"
#define OTON_FIELD_TEXT               "text"
#define OTON_FIELD_LINKS              "links"
#define OTON_FIELD_MESSAGE            "message"
#define OTON_FIELD_ERROR              "error"
#define OTON_FIELD_BUS_NAME           "bus_name"
#define OTON_FIELD_RENDERER           "renderer"
#define OTON_FIELD_WISH               "wish"
#define OTON_FIELD_IDENTITY           "identity"
#define OTON_FIELD_FROM_START         "from_start"
#define OTON_FIELD_KEEP               "keep"
#define OTON_FIELD_WHY                "why"
#define OTON_FIELD_KIND               "kind"                /* 1.6 */
#define OTON_FIELD_DETAILS            "details"             /* 1.6 */
#define OTON_FIELD_LEVEL_DBFS         "level_dbfs"          /* 1.6 */
#define OTON_FIELD_SILENCE_SECONDS    "silence_seconds"     /* 1.6 */
#define OTON_FIELD_TITLE_AGE_SECONDS  "title_age_seconds"   /* 1.6 */
#define OTON_FIELD_BEHIND_LIVE_MS     "behind_live_ms"      /* org.oton.timeshift.moved, and `status`'s data */
#define OTON_FIELD_TIMESHIFT_HELD_MS  "timeshift_held_ms"   /* idem */
#define OTON_FIELD_TIMESHIFT_LIMIT_MS "timeshift_limit_ms"  /* idem */

/* Event flags. */
#define OTON_EVENT_FLAG_NONE        0u
#define OTON_EVENT_FLAG_REPLAY      (1u << 0) /* the current value, replayed to an instance just created */

/* One open-ended key/value pair (tags, plugin data). Both strings required. */
typedef struct oton_field {
    const char *key;
    const char *value;
} oton_field;

/* The header every event carries. BORROWED: valid during the callback only.
 * `payload` points at a struct that itself starts with struct_size, or is
 * NULL. `fields` holds every value of the event as text as well (for the
 * core kinds too), so a plugin may ignore payloads entirely. */
typedef struct oton_event {
    uint32_t          struct_size;
    oton_event_kind   kind;
    const char       *kind_name;   /* "track", "state", … or the namespaced name */
    uint32_t          flags;       /* OTON_EVENT_FLAG_* */
    uint32_t          field_count;
    int64_t           mono_ns;     /* CLOCK_MONOTONIC when published */
    int64_t           wall_us;     /* Unix time in microseconds when published */
    const char       *source;      /* "host" or the publishing plugin's id */
    const void       *payload;     /* kind-specific, see OTON_EVENT_*; may be NULL */
    const oton_field *fields;      /* field_count pairs; may be NULL when 0 */
} oton_event;

/* OTON_EVENT_TRACK: what a listener sees changed. Strings may be NULL. */
typedef struct oton_track {
    uint32_t    struct_size;
    uint32_t    bitrate;        /* bits per second, 0 when unknown */
    uint64_t    sequence;       /* 1, 2, 3 … a new number if and only if the heard track changed
                                 * (its title, its artist, or a break began). The stream's own title
                                 * names the heard track; a station status API fills in only what the
                                 * stream lacks (cover, logo, the title when the stream sends none),
                                 * and only once its title matches the heard one. An event with the
                                 * same sequence adds what was learned later (artwork_url, station,
                                 * bitrate). 0 until the first track. Compare sequences, not strings.
                                 * A BREAK (ads, a jingle, a gap) is a sequence of its own: the field
                                 * "break" = "1" (in `fields` only, no struct member) when the stream
                                 * sent an empty or placeholder title ("", "-", "Unknown - Unknown",
                                 * the station's own name) after it had named a track. title, artist,
                                 * raw_title and artwork_url are then NULL / absent; station stays.
                                 * A break is not a song: do not scrobble it, do not count it as a
                                 * play. The field is absent on every other track event. */
    const char *title;
    const char *artist;
    const char *raw_title;      /* the cleaned stream title before splitting */
    const char *station;        /* icy-name / organization, or configured name */
    const char *genre;
    const char *codec;
    const char *artwork_url;    /* the cover the station's status API names for this track */
    const char *stream_url;
} oton_track;

typedef uint32_t oton_playback_state;
#define OTON_STATE_IDLE       0u
#define OTON_STATE_CONNECTING 1u
#define OTON_STATE_PLAYING    2u
#define OTON_STATE_BUFFERING  3u
#define OTON_STATE_PAUSED     4u
#define OTON_STATE_STOPPED    5u /* playback was stopped on request; idle follows at once */
#define OTON_STATE_ERROR      6u

/* OTON_EVENT_STATE. error_* are set only when state == OTON_STATE_ERROR. */
typedef struct oton_state_info {
    uint32_t            struct_size;
    oton_playback_state state;
    int32_t             buffering_percent; /* 0–100 in BUFFERING, else -1 */
    uint32_t            retry_attempt;     /* 0, or the reconnect attempt under way */
    const char         *error_kind;        /* stable code, e.g. "stream-unavailable" */
    const char         *error_message;     /* one line for the user */
    const char         *error_suggestion;  /* what the user can do */
} oton_state_info;

/* OTON_EVENT_VOLUME: the output volume changed (0.0 silent, 1.0 full, up to
 * OTON_VOLUME_MAX amplifies). A fade publishes one event per step (20 a second). */
typedef struct oton_volume_info {
    uint32_t struct_size;
    uint32_t reserved;
    double   volume;
} oton_volume_info;

/* OTON_EVENT_DROPPED: a plugin's mailbox or media tap overflowed. Delivered
 * to every instance that has on_event, whatever its `consumes`: to the
 * others at most once a second per victim (the event's `source` is then the
 * victim's id), and to the victim itself as soon as it is free again. Logged. */
typedef struct oton_drop_info {
    uint32_t    struct_size;
    uint32_t    media_tap;      /* the OTON_TAP_* that last lost data, 0 if only events were lost */
    const char *plugin_id;      /* whose queue overflowed */
    uint64_t    dropped_events; /* total so far for that plugin */
    uint64_t    dropped_bytes;  /* total media bytes so far for that plugin */
} oton_drop_info;

/* ------------------------------------------------------------------------ */
/* Media taps                                                               */
/* ------------------------------------------------------------------------ */

/* Bits for oton_plugin_descriptor.media_taps. The host adds the matching
 * tee → queue → appsink branch only when an enabled plugin asks for it. */
typedef uint32_t oton_media_tap;
#define OTON_TAP_NONE   0u
#define OTON_TAP_STREAM (1u << 0) /* encoded bytes as received, ICY metadata removed */
#define OTON_TAP_PCM    (1u << 1) /* decoded interleaved PCM, see oton_media_format */

typedef uint32_t oton_sample_format;
#define OTON_SAMPLE_NONE  0u /* encoded data (OTON_TAP_STREAM) */
#define OTON_SAMPLE_S16LE 1u
#define OTON_SAMPLE_F32LE 2u

#define OTON_MEDIA_FLAG_NONE           0u
#define OTON_MEDIA_FLAG_DISCONT        (1u << 0) /* data just before this one was lost (this plugin fell behind, or a gap in the stream) */
#define OTON_MEDIA_FLAG_FORMAT_CHANGED (1u << 1) /* caps differ from the previous buffer's on this connection */
#define OTON_MEDIA_FLAG_NEW_CONNECTION (1u << 2) /* first buffer of a (re)connection: never glue it to what came before */

typedef struct oton_media_format {
    uint32_t           struct_size;
    oton_media_tap     tap;
    const char        *caps;          /* GStreamer caps as text, e.g. "audio/mpeg, mpegversion=(int)1, layer=(int)3" */
    oton_sample_format sample_format; /* OTON_SAMPLE_NONE for the stream tap; the PCM tap: S16LE unless the instance chose F32LE (1.3) */
    uint32_t           rate;          /* Hz; 0 when unknown (stream tap) */
    uint32_t           channels;      /* 0 when unknown (stream tap) */
    uint32_t           reserved;
} oton_media_format;

/* 1.3: the PCM an instance wants on OTON_TAP_PCM, chosen in create() with
 * oton_host.select_pcm_format. Zero in a field means "as the stream has it". The
 * host converts once per distinct format, however many instances share it.
 * Where the tap sits: after decoding, BEFORE the volume element (a level meter
 * reads the stream's level whatever the listener's volume is), on a branch of
 * its own that never holds back the sound. pts_ns of PCM buffers is the
 * pipeline's running time on this connection, the same clock for every format. */
typedef struct oton_pcm_format_request {
    uint32_t           struct_size;   /* sizeof(oton_pcm_format_request) */
    oton_sample_format sample_format; /* OTON_SAMPLE_S16LE (0 means the same) or OTON_SAMPLE_F32LE */
    uint32_t           rate;          /* Hz, 8000 to 192000; 0: the stream's rate */
    uint32_t           channels;      /* 1 to 8 (1 mixes down to mono); 0: the stream's channels */
} oton_pcm_format_request;

/* One buffer of media. BORROWED for the on_media call only; copy to keep. */
typedef struct oton_media_buffer {
    uint32_t                 struct_size;
    uint32_t                 flags;       /* OTON_MEDIA_FLAG_* */
    const oton_media_format *format;
    const uint8_t           *data;
    size_t                   size;
    int64_t                  pts_ns;      /* presentation time, -1 when unknown */
    uint64_t                 offset;      /* bytes of this tap the host received before this one on this
                                             connection, lost buffers included: a jump shows a gap */
    uint64_t                 connection;  /* 1, 2 … increments on every (re)connect */
    int64_t                  mono_ns;     /* CLOCK_MONOTONIC when the host received it */
} oton_media_buffer;

/* ------------------------------------------------------------------------ */
/* Requests a plugin sends to the player                                    */
/* ------------------------------------------------------------------------ */

typedef uint32_t oton_request_kind;
#define OTON_REQUEST_PLAY        1u
#define OTON_REQUEST_PAUSE       2u
#define OTON_REQUEST_STOP        3u
#define OTON_REQUEST_SET_VOLUME  4u /* volume */
#define OTON_REQUEST_FADE_VOLUME 5u /* volume over duration_ms */
#define OTON_REQUEST_QUIT        6u /* end the oton process as Ctrl-C would */
#define OTON_REQUEST_PLAY_PAUSE  7u
/* 1.2: switch stations. A switch is a new connection for every plugin: the current track
 * ends (state `stopped`, then `idle`), then the new station connects and its track event
 * carries the new station. An unknown name or number is logged and nothing changes. */
#define OTON_REQUEST_SWITCH_STATION 8u /* station: a name of plugins.json, its 1-based number, or an http(s) URL */
#define OTON_REQUEST_NEXT_STATION   9u /* the next station of plugins.json, wrapping */
#define OTON_REQUEST_PREV_STATION  10u /* the previous one, wrapping */

typedef struct oton_request {
    uint32_t          struct_size;
    oton_request_kind kind;
    double            volume;      /* 0.0 … 1.0 for SET_VOLUME / FADE_VOLUME */
    uint32_t          duration_ms; /* for FADE_VOLUME */
    uint32_t          reserved;
    /* 1.2 (read only when struct_size covers it): */
    const char       *station;     /* for SWITCH_STATION; UTF-8, borrowed: copied before request() returns */
} oton_request;

/* ------------------------------------------------------------------------ */
/* Control commands (oton ctl NAME ARGS…)                                   */
/* ------------------------------------------------------------------------ */

/* Writes the reply text of a command; may be called several times (the
 * pieces are concatenated). `text` is copied. Call only during on_command. */
typedef void (*oton_reply_fn)(void *reply_context, const char *text);

/* A command a plugin provides. Declared statically in the descriptor (so
 * `oton plugins inspect` can list it) and answered by on_command. */
typedef struct oton_command_decl {
    uint32_t    struct_size;
    uint32_t    reserved;
    const char *name;  /* [a-z0-9-]{1,64}, unique across plugins (the first plugin keeps it), e.g. "sleep" */
    const char *usage; /* e.g. "sleep DURATION|after-track|cancel" */
    const char *help;  /* one line */
} oton_command_decl;

/* ------------------------------------------------------------------------ */
/* Declared settings (1.6)                                                  */
/* ------------------------------------------------------------------------ */

/* The type of one key of a plugin's "config" object. */
typedef enum oton_setting_type {
    OTON_SETTING_BOOLEAN = 1, /* true or false */
    OTON_SETTING_INTEGER = 2, /* a whole number (within minimum..maximum with OTON_SETTING_HAS_RANGE) */
    OTON_SETTING_NUMBER  = 3, /* a number (within minimum..maximum with OTON_SETTING_HAS_RANGE) */
    OTON_SETTING_STRING  = 4, /* text; with `choices`, one of them */
    OTON_SETTING_STRINGS = 5  /* an array of text */
} oton_setting_type;

#define OTON_SETTING_REQUIRED  0x1u /* plugins.json must give the key */
#define OTON_SETTING_HAS_RANGE 0x2u /* `minimum` and `maximum` apply (INTEGER, NUMBER) */
#define OTON_SETTING_SECRET    0x4u /* a password or token: never shown by inspect, list or a remote */

/* One key of the plugin's "config" object, declared statically in the
 * descriptor (like oton_command_decl; CLAP's parameters, GObject's properties).
 * With declarations, the host checks the config in plugins.json before
 * create(): an unknown key (with the nearest declared one: "did you mean"),
 * a value of another type, a number out of range, a string not among the
 * choices or a missing required key refuses the plugin with that reason, and
 * create() is never called. `oton plugins inspect` lists them and
 * `oton plugins set ID KEY VALUE` writes one. The plugin still reads its
 * values from config_json (oton_host.read_json) and applies its defaults. All
 * strings are static (owned by the plugin, valid while it is loaded). */
typedef struct oton_setting_decl {
    uint32_t           struct_size;  /* sizeof(oton_setting_decl) */
    uint32_t           type;         /* oton_setting_type */
    const char        *key;          /* REQUIRED: [a-z0-9_]{1,64}, unique in the plugin */
    const char        *help;         /* one line, e.g. "the file to write (created if missing)" */
    const char        *default_json; /* the value used when the key is absent, as JSON text ("true", "5",
                                      * "\"text\""), shown by inspect; NULL: none (or required) */
    const char *const *choices;      /* STRING: NULL-terminated accepted values; NULL: any text */
    double             minimum;      /* with OTON_SETTING_HAS_RANGE, inclusive */
    double             maximum;      /* with OTON_SETTING_HAS_RANGE, inclusive */
    uint32_t           flags;        /* OTON_SETTING_REQUIRED | OTON_SETTING_HAS_RANGE | OTON_SETTING_SECRET */
    uint32_t           reserved;     /* 0 */
} oton_setting_decl;

/* ------------------------------------------------------------------------ */
/* The host table, handed to create()                                       */
/* ------------------------------------------------------------------------ */

typedef struct oton_host oton_host;

/* Receives a snapshot event from oton_host.current(); BORROWED for the call. */
typedef void (*oton_event_visitor)(void *user, const oton_event *event);

/* 1.5: what oton_host.read_json reads at a path, and where it puts it. */
typedef uint32_t oton_json_type;
#define OTON_JSON_STRING       1u /* a string: copied into text, its length in integer */
#define OTON_JSON_NUMBER       2u /* a number, fractions allowed: number */
#define OTON_JSON_INTEGER      3u /* a whole number that fits 64 bits (1e3 is 1000; 1.5, "5" and true are not): integer (and number) */
#define OTON_JSON_BOOL         4u /* true or false: boolean */
#define OTON_JSON_ARRAY_LENGTH 5u /* a list, whatever its items: how many, in integer */

/* 1.5: one read of oton_host.read_json. The plugin owns it (on its stack, say)
 * and fills the IN fields; the host writes the OUT fields before read_json
 * returns and never keeps the pointer. */
typedef struct oton_json_value {
    uint32_t       struct_size; /* IN: sizeof(oton_json_value) */
    oton_json_type type;        /* IN: OTON_JSON_* */
    double         minimum;     /* IN, NUMBER and INTEGER: the inclusive range the value must lie in, */
    double         maximum;     /*     refused in the config reader's words; both 0 means any value */
    char          *text;        /* IN, STRING: the plugin's buffer for the string, NUL-terminated; */
    size_t         text_size;   /*     its size in bytes. 0 (text may be NULL) asks for the length only */
    uint32_t       found;       /* OUT: 1 when the path holds a value, 0 when it is absent or null
                                 *      (anywhere along the path): nothing else is written, the
                                 *      plugin's default applies, and the status is OTON_OK */
    uint32_t       boolean;     /* OUT, BOOL: 1 for true, 0 for false */
    double         number;      /* OUT, NUMBER and INTEGER */
    int64_t        integer;     /* OUT, INTEGER: the value; ARRAY_LENGTH: the count; STRING: its length
                                 *      in bytes without the NUL (a JSON "\u0000" inside is copied too) */
} oton_json_value;

/* 1.3: receives the outcome of oton_host.run_command(). PLUGIN MAILBOX of the
 * instance that ran the command (like on_event: never at the same time as
 * another of its callbacks, never after its destroy() began). `status` is
 * OTON_OK when the command succeeded, OTON_ERR_FAILED when it answered with
 * an error, OTON_ERR_BUSY when it did not answer in time. `reply_json` is
 * the reply object of the control protocol (docs/control.md), the line
 * `oton ctl --json` prints: {"id":null,"ok":true,"text":"…","data":{…}} or
 * {"id":null,"ok":false,"error":"…"}; BORROWED for the call. */
typedef void (*oton_command_done_fn)(void *user, oton_status status, const char *reply_json);

/* Functions the host offers. The table and everything it points to stay
 * valid from create() until destroy() returns. Each instance receives its
 * own table; pass it back as the first argument so the host knows who calls.
 * Append-only: check struct_size (OTON_HAS_FIELD) before using any field
 * added after ABI 1.0. */
struct oton_host {
    uint32_t    struct_size;
    uint32_t    abi_major;      /* the host's OTON_ABI_MAJOR */
    uint32_t    abi_minor;      /* the host's OTON_ABI_MINOR */
    uint32_t    reserved;
    const char *host_version;   /* e.g. "0.1.0" */
    void       *host_data;      /* opaque to the plugin */

    /* ANY THREAD. Writes one line to the host's log, prefixed with the
     * plugin's id. `message` is copied. Never put secrets in it. */
    void (*log)(const oton_host *host, oton_log_level level, const char *message);

    /* ANY THREAD. Maps a namespaced kind name to its integer (stable for the
     * life of the process). Returns 0 when `name` is not a valid
     * reverse-DNS name. Core kinds map to their OTON_EVENT_* values. */
    oton_event_kind (*event_kind)(const oton_host *host, const char *name);

    /* ANY THREAD. Publishes an event to every OTHER instance that consumes
     * its kind (never back to the sender). The host copies the event, its
     * fields and payload-free data before returning; `kind` must come from
     * event_kind() (core kinds may not be published by plugins). mono_ns,
     * wall_us, flags and source are set by the host. Never blocks: a
     * receiver whose queue is full loses it, which is counted and announced
     * with OTON_EVENT_DROPPED. Returns OTON_ERR_INVALID for a bad kind. */
    oton_status (*publish)(const oton_host *host, const oton_event *event);

    /* ANY THREAD. Enqueues a request to the player and returns at once;
     * the result arrives later as a state or volume event. */
    oton_status (*request)(const oton_host *host, const oton_request *request);

    /* ANY THREAD. Calls `visitor` synchronously with the latest event of
     * `kind` seen on the bus (OTON_EVENT_TRACK, OTON_EVENT_STATE,
     * OTON_EVENT_VOLUME or a dynamic kind). Returns OTON_ERR_UNSUPPORTED
     * when there is none yet. */
    oton_status (*current)(const oton_host *host, oton_event_kind kind,
                           oton_event_visitor visitor, void *user);

    /* MAIN THREAD or PLUGIN MAILBOX. Adds a control command at run time
     * (for commands that depend on the config); answered by on_command like
     * the descriptor's. The declaration is copied. Returns OTON_ERR_INVALID
     * for a malformed name, a usage or help over 1 KiB or with control
     * characters, or a command past the plugin's 64 (the first refusal is
     * logged), and OTON_ERR_BUSY when another plugin has it. */
    oton_status (*register_command)(const oton_host *host, const oton_command_decl *command);

    /* The plugin's own directories, created by the host before create():
     * $XDG_DATA_HOME/oton/plugins/<id> and $XDG_CACHE_HOME/oton/plugins/<id>.
     * The strings live as long as the host table. */
    const char *data_dir;
    const char *cache_dir;

    /* ---- added in ABI 1.1 (check OTON_HAS_FIELD(host, oton_host, select_media_taps)) ---- */

    /* MAIN THREAD, only from inside create(). Narrows the media taps this
     * instance receives to `taps`, a subset of the descriptor's media_taps
     * (the descriptor says what the plugin may ever ask for, which is what
     * `oton plugins inspect` shows; the config decides what it needs now).
     * Not calling it means every declared tap; OTON_TAP_NONE means none.
     * A tap nobody selects is not built, so a plugin that does not need the
     * decoded PCM should say so: the host may then skip decoding entirely.
     * Returns OTON_ERR_INVALID for bits outside media_taps and OTON_ERR_BUSY
     * when called after create() returned. A plugin that declares ABI 1.0
     * (to load into 1.0 hosts too) finds the field absent there: it then
     * receives every declared tap and must ignore the buffers it does not
     * want (check oton_media_format.tap). */
    oton_status (*select_media_taps)(const oton_host *host, oton_media_tap taps);

    /* ---- added in ABI 1.3 (check OTON_HAS_FIELD(host, oton_host, run_command)) ---- */

    /* ANY THREAD. Runs a control command exactly as `oton ctl NAME ARGS…`
     * would: a host command (status, volume, station, stations, next, …) or
     * another plugin's (sleep, share, history, …), with the same checks and
     * the same reply, so a plugin can do nothing the control socket cannot.
     * `name` is the command word, `args_json` its arguments as a JSON array
     * of strings (NULL means none); both are copied before this returns.
     * Never blocks: returns OTON_OK when the command was queued, then runs it
     * on a host thread and calls `done(user, …)` exactly once on the caller's
     * mailbox (`done` may be NULL when the reply does not matter). `done` is
     * not called when the instance is destroyed first: `user` must stay valid
     * until done() or destroy(). Returns OTON_ERR_INVALID for a NULL or empty
     * name or args_json that is not an array of strings, OTON_ERR_UNSUPPORTED
     * for "subscribe" (a stream, not a reply), and OTON_ERR_BUSY when this
     * instance already has 16 commands waiting for their replies. */
    oton_status (*run_command)(const oton_host *host, const char *name, const char *args_json,
                               oton_command_done_fn done, void *user);

    /* MAIN THREAD, only from inside create(). Chooses the format of the PCM
     * this instance receives (see oton_pcm_format_request; `format` is copied).
     * Not calling it means S16LE at the stream's rate and channels, as before
     * 1.3. Returns OTON_ERR_INVALID for a NULL or short struct or a value out
     * of range, OTON_ERR_UNSUPPORTED when the instance receives no PCM (its
     * taps, as narrowed by select_media_taps so far, lack OTON_TAP_PCM), and
     * OTON_ERR_BUSY after create() returned. */
    oton_status (*select_pcm_format)(const oton_host *host, const oton_pcm_format_request *format);

    /* ---- added in ABI 1.4 (check OTON_HAS_FIELD(host, oton_host, translate)) ---- */

    /* The user's language as the host resolved it from its environment
     * (LC_ALL, LC_MESSAGES, LANG, then a LANGUAGE list, as gettext reads
     * them): the languages whose catalogue the host uses, most wanted first
     * and separated by ':' as in LANGUAGE, e.g. "ru", or "sah:ru" (Sakha,
     * then Russian); "en" when the host speaks English. English always comes
     * last, unnamed. Never NULL. Lives as long as the host table. Texts a
     * person reads (command replies, log lines) may follow it; events and
     * JSON are an API and stay English. */
    const char *language;

    /* ANY THREAD. The host's catalogue entry for `message`, an English text
     * exactly as it is written in the host's catalogues (locale/<code>.po;
     * the bundled plugins' messages are there too), in `language`, or
     * `message` itself when the catalogue has none (and NULL for NULL).
     * Placeholders in braces ("{time}") are kept as in the message, so the
     * plugin fills them in after translating. The result is the host's (never
     * free it) and lives as long as the host table. */
    const char *(*translate)(const oton_host *host, const char *message);

    /* ---- added in ABI 1.5 (check OTON_HAS_FIELD(host, oton_host, read_json)) ---- */

    /* ANY THREAD. Reads one value of the JSON text `json` at `path` into
     * `value`, with the rules and words of the host's config reader (the one
     * the bundled plugins use), so a plugin needs no JSON parser of its own:
     * pass create()'s config_json with paths under "config", and on_command's
     * args_json with paths under "args" (a command's arguments are strings).
     *
     * PATH       a root name that names the text in messages ("config",
     *            "args"; letters, digits, '_', '-'), then any number of
     *            ".key" (an object's member) and "[index]" (a list's item,
     *            from 0): "config.station.name", "config.services[2].url",
     *            "args[0]", or the root alone ("args" with ARRAY_LENGTH: how
     *            many arguments). At most 1024 bytes and 64 steps. A key that
     *            holds '.' or '[' cannot be reached. A root named "config" must
     *            be a JSON object.
     * RESULT     OTON_OK with value->found = 1 and the value written, or
     *            found = 0 when the value is absent or null anywhere along the
     *            path (the default applies). OTON_ERR_INVALID when the text is
     *            not JSON (at most 1 MiB, nested at most 64 deep), the value or
     *            a step on the way has another type, a number lies outside
     *            [minimum, maximum], or the path, the range or `value` is
     *            malformed (NULL, struct_size below OTON_JSON_VALUE_SIZE_1_5, an
     *            unknown type). OTON_ERR_FAILED when a string does not fit in
     *            text_size bytes: value->integer then holds its length, text[0]
     *            is NUL; call again with integer + 1 bytes. OTON_ERR_FAILED with
     *            no error text after destroy() began, as for the table's other
     *            functions.
     * ERROR      Otherwise, on every status but OTON_OK, one line saying what
     *            is wrong and what it must be, in the host's `language`, e.g.
     *            "config.port must be a whole number from 1 to 65535, not \"80\"",
     *            is written NUL-terminated into `error` (the plugin's buffer of
     *            `error_size` bytes, cut at a character's end; may be NULL with
     *            0): fit to hand on as create()'s error or a command's reply.
     * OWNERSHIP  `json`, `path` and `value` are BORROWED for the call; the
     *            host copies nothing it keeps and holds no state between calls,
     *            so the string read is the plugin's own copy in `text`. */
    oton_status (*read_json)(const oton_host *host, const char *json, const char *path,
                             oton_json_value *value, char *error, size_t error_size);

    /* 1.6, ANY THREAD. Writes `text` as a JSON string literal, quotes included,
     * so a plugin that sends JSON (a webhook, MQTT, a file for OBS) needs no
     * escaping of its own: build the rest with snprintf around it.
     *
     * INPUT      `text`: NUL-terminated UTF-8 (a title, a station name: any
     *            bytes; invalid UTF-8 becomes U+FFFD). At most 1 MiB is read.
     * OUTPUT     `out`: the plugin's buffer of `out_size` bytes, NUL-terminated:
     *            "…" with \" \\ and every control character escaped (\n, \t,
     *            \u0001 …), U+2028 and U+2029 too; other characters as UTF-8.
     *            `*length` (may be NULL): the literal's length without the NUL.
     * RESULT     OTON_OK. OTON_ERR_FAILED when it does not fit: out[0] is NUL
     *            (when out_size > 0) and *length holds the length needed; call
     *            again with *length + 1 bytes. OTON_ERR_INVALID when `text` is
     *            NULL, or `out` is NULL with out_size > 0. OTON_ERR_FAILED after
     *            destroy() began, as for the table's other functions.
     * OWNERSHIP  Both BORROWED for the call; nothing is kept. */
    oton_status (*write_json_string)(const oton_host *host, const char *text,
                                     char *out, size_t out_size, size_t *length);
};

/* ------------------------------------------------------------------------ */
/* The plugin descriptor                                                    */
/* ------------------------------------------------------------------------ */

/* The plugin's instance, opaque to the host. */
typedef void oton_instance;

typedef struct oton_plugin_descriptor {
    uint32_t    struct_size;    /* sizeof(oton_plugin_descriptor) */
    uint32_t    abi_major;      /* OTON_ABI_MAJOR the plugin was built with */
    uint32_t    abi_minor;      /* OTON_ABI_MINOR the plugin was built with */
    uint32_t    media_taps;     /* OTON_TAP_* bits the plugin may want; an instance narrows them with oton_host.select_media_taps (1.1) */

    const char *id;             /* REQUIRED, reverse-DNS, e.g. "org.example.logger" */
    const char *name;           /* REQUIRED, human name */
    const char *version;        /* REQUIRED, the plugin's own version */
    const char *description;    /* optional, one line */

    /* NULL-terminated list of event kind names the plugin wants: "track",
     * "state", "volume", "dropped", namespaced names, or "*" for all.
     * NULL means none. */
    const char *const *consumes;

    /* Commands the plugin answers in on_command: `command_count` entries,
     * each commands[0].struct_size bytes apart (so a newer, longer
     * oton_command_decl still reads correctly). NULL when 0. */
    const oton_command_decl *commands;
    uint32_t    command_count;
    uint32_t    reserved;

    /* MAIN THREAD of the host, once per enabling. `config_json` is the
     * plugin's "config" object from plugins.json as JSON text (BORROWED;
     * "{}" when absent). Returns the instance, or NULL after writing a
     * NUL-terminated reason into `error` (host-owned, `error_size` bytes). */
    oton_instance *(*create)(const oton_host *host, const char *config_json,
                             char *error, size_t error_size);

    /* PLUGIN MAILBOX, last call. Release everything; stop own threads and
     * make sure none of them calls the host table after this returns. */
    void (*destroy)(oton_instance *instance);

    /* PLUGIN MAILBOX. One event of a consumed kind. Optional (NULL). */
    void (*on_event)(oton_instance *instance, const oton_event *event);

    /* PLUGIN MAILBOX. One media buffer from a tap in media_taps. Optional.
     * Must return quickly: a plugin that falls behind loses buffers (the
     * next buffer then carries OTON_MEDIA_FLAG_DISCONT and a DROPPED event
     * is sent). */
    void (*on_media)(oton_instance *instance, const oton_media_buffer *buffer);

    /* PLUGIN MAILBOX. Runs command `name` with its arguments as a JSON
     * array of strings (BORROWED). Writes the reply with reply(); returns
     * OTON_OK, or an error status with the reply text as the message. */
    oton_status (*on_command)(oton_instance *instance, const char *name,
                              const char *args_json, oton_reply_fn reply,
                              void *reply_context);

    /* 1.6: the keys of the "config" object: `setting_count` entries, each
     * settings[0].struct_size bytes apart. With at least one, the host checks
     * the config against them before create() (see oton_setting_decl) and
     * refuses keys that are not declared. NULL and 0: the plugin checks its
     * config itself, as before 1.6. A host older than 1.6 ignores them. */
    const oton_setting_decl *settings;
    uint32_t    setting_count;
    uint32_t    reserved2;      /* 0 */

    /* 1.6 (after reserved2; read only when struct_size covers it): an
     * in-place filter of the sound that is HEARD. Optional (NULL).
     *
     * AUDIO THREAD: a GStreamer streaming thread, while the plugin's mailbox
     * calls (on_event, on_media, on_command) run at the same time on another
     * thread: share state with them through atomics only. Calls for one
     * instance never overlap one another. The first call comes after
     * create(), the last before destroy().
     *
     * `samples`: `frames` interleaved frames of `channels` 32-bit floats
     * (nominal range -1 … 1) at `rate` Hz; BORROWED for this call. Change
     * them in place; the buffer's length cannot change.
     *
     * Where it sits: after the PCM tap (on_media and WAV recordings get the
     * stream's own sound, never the filtered one) and after plugins.json's
     * "effects", before the loudness leveller and the volume.
     *
     * The real-time rules: no allocation (malloc, new, Swift arrays or
     * strings), no locks or waits (mutexes, semaphores, sleep, condition
     * variables), no I/O (files, sockets, logging, printf), no call into the
     * host table. Prepare everything in create().
     *
     * The time budget: half the buffer's duration (frames / rate / 2),
     * at least 2 ms. A call that takes longer is the filter's last on this
     * connection: the host bypasses it (the sound passes unfiltered) and logs
     * a line naming the plugin; it is called again on the next connection.
     * A call that never returns stops the sound: the host cannot interrupt it.
     *
     * Isolated plugins ("isolation": "process") cannot filter: the audio
     * thread cannot wait for another process. The host says so in the log
     * and runs the plugin without its filter. */
    void (*filter)(oton_instance *instance, float *samples, size_t frames,
                   uint32_t channels, uint32_t rate);
} oton_plugin_descriptor;

/* ------------------------------------------------------------------------ */
/* Minimum sizes                                                            */
/* ------------------------------------------------------------------------ */

/* The size of each struct in ABI 1.0 (LP64: x86_64, aarch64), the smallest
 * struct_size a reader accepts for it. A struct_size below this is malformed
 * (OTON_ERR_INVALID, or a refused plugin); anything from this size up is
 * valid, and a field appended after 1.0 is read only when OTON_HAS_FIELD says
 * the struct_size covers it. These numbers never change: each is the end of
 * the struct's last 1.0 field (oton_request: its last used one), pinned below. */
#define OTON_EVENT_SIZE_1_0        64u  /* oton_event, through fields */
#define OTON_TRACK_SIZE_1_0        80u  /* oton_track, through stream_url */
#define OTON_STATE_INFO_SIZE_1_0   40u  /* oton_state_info, through error_suggestion */
#define OTON_VOLUME_INFO_SIZE_1_0  16u  /* oton_volume_info, through volume */
#define OTON_DROP_INFO_SIZE_1_0    32u  /* oton_drop_info, through dropped_bytes */
#define OTON_MEDIA_FORMAT_SIZE_1_0 32u  /* oton_media_format, through reserved */
#define OTON_MEDIA_BUFFER_SIZE_1_0 64u  /* oton_media_buffer, through mono_ns */
#define OTON_REQUEST_SIZE_1_0      20u  /* oton_request, through duration_ms (reserved may be left out) */
#define OTON_COMMAND_DECL_SIZE_1_0 32u  /* oton_command_decl, through help */
#define OTON_HOST_SIZE_1_0         96u  /* oton_host, through cache_dir */
#define OTON_DESCRIPTOR_SIZE_1_0   112u /* oton_plugin_descriptor, through on_command */
/* Structs that first appeared in a later minor: the smallest size, as there. */
#define OTON_PCM_FORMAT_REQUEST_SIZE_1_3 16u /* oton_pcm_format_request, through channels */
#define OTON_JSON_VALUE_SIZE_1_5         64u /* oton_json_value, through integer */
#define OTON_SETTING_DECL_SIZE_1_6       64u /* oton_setting_decl, through reserved */
/* The descriptor's size in 1.6, through reserved2 (1.0 to 1.5: OTON_DESCRIPTOR_SIZE_1_0). */
#define OTON_DESCRIPTOR_SIZE_1_6         128u

/* The end of `field` in `type`: offsetof + sizeof. */
#define OTON_FIELD_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

#if defined(__LP64__) && !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(OTON_FIELD_END(oton_event, fields) == OTON_EVENT_SIZE_1_0, "oton_event: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_track, stream_url) == OTON_TRACK_SIZE_1_0, "oton_track: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_state_info, error_suggestion) == OTON_STATE_INFO_SIZE_1_0, "oton_state_info: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_volume_info, volume) == OTON_VOLUME_INFO_SIZE_1_0, "oton_volume_info: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_drop_info, dropped_bytes) == OTON_DROP_INFO_SIZE_1_0, "oton_drop_info: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_media_format, reserved) == OTON_MEDIA_FORMAT_SIZE_1_0, "oton_media_format: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_media_buffer, mono_ns) == OTON_MEDIA_BUFFER_SIZE_1_0, "oton_media_buffer: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_request, duration_ms) == OTON_REQUEST_SIZE_1_0, "oton_request: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_command_decl, help) == OTON_COMMAND_DECL_SIZE_1_0, "oton_command_decl: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_host, cache_dir) == OTON_HOST_SIZE_1_0, "oton_host: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_plugin_descriptor, on_command) == OTON_DESCRIPTOR_SIZE_1_0, "oton_plugin_descriptor: 1.0 layout changed");
_Static_assert(OTON_FIELD_END(oton_pcm_format_request, channels) == OTON_PCM_FORMAT_REQUEST_SIZE_1_3, "oton_pcm_format_request: 1.3 layout changed");
_Static_assert(OTON_FIELD_END(oton_json_value, integer) == OTON_JSON_VALUE_SIZE_1_5, "oton_json_value: 1.5 layout changed");
_Static_assert(offsetof(oton_host, read_json) == 136, "oton_host: 1.5 layout changed");
_Static_assert(offsetof(oton_host, write_json_string) == 144, "oton_host: 1.6 layout changed");
_Static_assert(OTON_FIELD_END(oton_setting_decl, reserved) == OTON_SETTING_DECL_SIZE_1_6, "oton_setting_decl: 1.6 layout changed");
_Static_assert(OTON_FIELD_END(oton_plugin_descriptor, reserved2) == OTON_DESCRIPTOR_SIZE_1_6, "oton_plugin_descriptor: 1.6 layout changed");
_Static_assert(offsetof(oton_plugin_descriptor, filter) == OTON_DESCRIPTOR_SIZE_1_6, "oton_plugin_descriptor: 1.6 filter layout changed");
#endif

/* The entry point's type. The plugin defines exactly one function named
 * oton_plugin_entry with this signature, exported with OTON_EXPORT. It must
 * not allocate per call or have side effects: the host may call it without
 * ever calling create (oton plugins inspect). The returned descriptor and
 * every string it points to must stay valid for the life of the process. */
typedef const oton_plugin_descriptor *(*oton_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* OTON_PLUGIN_H */
