/* Compile-time guards for the ABI: the first published layout of each
 * struct must never change. If one of these fails, a field was reordered,
 * retyped or removed; append new fields at the end instead. (x86_64/aarch64
 * LP64 offsets.) This file is not part of the contract; plugins never need it. */
#include "oton_plugin.h"

#if defined(__LP64__)
_Static_assert(offsetof(oton_event, kind_name) == 8, "oton_event layout changed");
_Static_assert(offsetof(oton_event, fields) == 56, "oton_event layout changed");
_Static_assert(offsetof(oton_track, title) == 16, "oton_track layout changed");
_Static_assert(offsetof(oton_track, stream_url) == 72, "oton_track layout changed");
_Static_assert(offsetof(oton_state_info, error_kind) == 16, "oton_state_info layout changed");
_Static_assert(offsetof(oton_media_buffer, data) == 16, "oton_media_buffer layout changed");
_Static_assert(offsetof(oton_media_buffer, mono_ns) == 56, "oton_media_buffer layout changed");
_Static_assert(offsetof(oton_request, duration_ms) == 16, "oton_request layout changed");
_Static_assert(offsetof(oton_request, station) == 24, "oton_request layout changed (1.2)");
_Static_assert(offsetof(oton_host, log) == 32, "oton_host layout changed");
_Static_assert(offsetof(oton_host, cache_dir) == 88, "oton_host layout changed");
_Static_assert(offsetof(oton_host, select_media_taps) == 96, "oton_host layout changed (1.1)");
_Static_assert(offsetof(oton_host, run_command) == 104, "oton_host layout changed (1.3)");
_Static_assert(offsetof(oton_host, select_pcm_format) == 112, "oton_host layout changed (1.3)");
_Static_assert(offsetof(oton_host, language) == 120, "oton_host layout changed (1.4)");
_Static_assert(offsetof(oton_host, translate) == 128, "oton_host layout changed (1.4)");
_Static_assert(offsetof(oton_host, read_json) == 136, "oton_host layout changed (1.5)");
_Static_assert(offsetof(oton_json_value, minimum) == 8, "oton_json_value layout changed (1.5)");
_Static_assert(offsetof(oton_json_value, text) == 24, "oton_json_value layout changed (1.5)");
_Static_assert(offsetof(oton_json_value, found) == 40, "oton_json_value layout changed (1.5)");
_Static_assert(offsetof(oton_json_value, number) == 48, "oton_json_value layout changed (1.5)");
_Static_assert(offsetof(oton_json_value, integer) == 56, "oton_json_value layout changed (1.5)");
_Static_assert(offsetof(oton_plugin_descriptor, id) == 16, "descriptor layout changed");
_Static_assert(offsetof(oton_plugin_descriptor, create) == 72, "descriptor layout changed");
_Static_assert(offsetof(oton_plugin_descriptor, on_command) == 104, "descriptor layout changed");
#endif

/* Keeps this translation unit non-empty for strict compilers. */
typedef int oton_plugin_layout_checked;
