#ifndef OTON_HTTP_SOURCE_H
#define OTON_HTTP_SOURCE_H

#include <gst/gst.h>

/* oton's HTTP source: GStreamer's souphttpsrc that takes its User-Agent and certificate
 * authorities from the pipeline it serves. Registered as "otonhttpsrc" for http and https,
 * one rank above souphttpsrc, so every source GStreamer makes from a URI is one — including
 * the HLS and DASH demuxers' own playlist downloader, whose source sits in no bin and so was
 * out of reach of anything a pipeline sets on its children.
 *
 * Each source asks for the context OTON_REQUEST_IDENTITY_CONTEXT when it starts (a need-context
 * message); a pipeline answers from the context set on it with oton_request_identity_set().
 * A demuxer's downloader forwards the question to the demuxer, which holds the pipeline's contexts. */
#define OTON_REQUEST_IDENTITY_CONTEXT "org.oton.request-identity"
#define OTON_HTTP_SOURCE_FACTORY "otonhttpsrc"

/* Registers otonhttpsrc once (after gst_init; thread-safe). FALSE when souphttpsrc is missing. */
gboolean oton_http_source_register(void);

/* Whether `element` is an HTTP source GStreamer made for a URI: souphttpsrc or otonhttpsrc (any thread). */
gboolean oton_is_http_source(GstElement *element);

/* Sets the identity context on `pipeline` (and so on every element in it, now and later).
 * `ca_file` may be NULL (the system's authorities). */
void oton_request_identity_set(GstElement *pipeline, const char *user_agent, const char *ca_file);

/* A rewriter of whole XML responses (a DASH manifest): given the URL the source fetched (its
 * "location", or NULL) and the body of a response whose first
 * non-blank byte is '<' (at most OTON_HTTP_SOURCE_XML_LIMIT bytes), either returns FALSE (the body
 * goes on unchanged) or TRUE with a replacement in *out (g_malloc'd; the source takes it and frees
 * it with g_free) of *out_size bytes. Called on the source's streaming thread, for the first
 * (initial) manifest of a pipeline and for every reload the demuxer's downloader makes alike;
 * it must not block. Why: GStreamer 1.22's dashdemux misplaces its position in a live MPD whose
 * SegmentTimeline does not start at 0 (DASHTimelineRepair in OtonMedia says how), and every
 * manifest it reads, first or reloaded, comes through this source; the URL lets the rewriter also
 * read what the demuxer does not pass on (the MPD's EventStream titles, DASHEventStreams). */
typedef gboolean (*OtonXMLBodyRewriter)(const char *url, const guint8 *body, gsize size, guint8 **out, gsize *out_size);

/* A response that starts like XML is held back until its end (or this many bytes: then it goes on
 * unchanged), so the rewriter sees it whole. */
#define OTON_HTTP_SOURCE_XML_LIMIT (4 * 1024 * 1024)

/* Sets the rewriter every otonhttpsrc uses from now on (NULL: none). Any thread; set once at start. */
void oton_http_source_set_xml_rewriter(OtonXMLBodyRewriter rewriter);

/* An observer of HLS playlists: called with the URL a source fetched (its "location") and the whole
 * body of a response that starts with "#EXTM3U" (at most OTON_HTTP_SOURCE_PLAYLIST_LIMIT bytes;
 * larger ones are not observed), once the response has ended. The response itself passes on
 * unchanged; the bytes belong to the source and are valid during the call only. Called on the
 * source's streaming thread, for a pipeline's first playlist and every reload its demuxer's
 * downloader makes; it must not block. Why: the #EXTINF titles of a station's segments, which
 * GStreamer's HLS demuxer reads but does not pass on (HLSSegmentTitles in OtonMedia). */
typedef void (*OtonPlaylistObserver)(const char *url, const guint8 *body, gsize size);
#define OTON_HTTP_SOURCE_PLAYLIST_LIMIT (1024 * 1024)

/* Sets the observer every otonhttpsrc uses from now on (NULL: none). Any thread; set once at start. */
void oton_http_source_set_playlist_observer(OtonPlaylistObserver observer);

/* Does now, on the calling thread, what the first otonhttpsrc of the process would otherwise do
 * on the way to its first response: registers it (loading souphttpsrc and libsoup), starts GIO's
 * TLS backend with its system certificate database, and makes GIO's proxy resolver. Each is made
 * once per process and kept, so a source started later finds them ready. Call it after gst_init,
 * on a thread of its own while the command does other work (GLibMainLoop.warmUp): about 50 ms
 * less before the first segment of an HLS station. Thread-safe; repeated calls cost nothing. */
void oton_http_source_warm_up(void);

/* Gives `source` (an otonhttpsrc, before it starts) the body of its location's first response,
 * fetched a moment ago by someone else (the station resolver, which reads an HLS playlist to tell
 * it from a list of stations): that response is these bytes, delivered at once, without a request;
 * every later start of the source fetches as usual. Copies `body` (at most
 * OTON_HTTP_SOURCE_PLAYLIST_LIMIT bytes; a larger one is ignored). FALSE when `source` is not an
 * otonhttpsrc. Why: the demuxer's second GET of a playlist just read cost a round trip before the
 * first segment was asked for. */
gboolean oton_http_source_preload(GstElement *source, const guint8 *body, gsize size);

#endif
