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

#endif
