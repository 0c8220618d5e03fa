/* libcurl for the host and plugins, with typed wrappers for curl_easy_setopt and
 * curl_easy_getinfo (varargs, which Swift cannot call). */
#ifndef OTON_CCURL_SHIM_H
#define OTON_CCURL_SHIM_H

#include <curl/curl.h>

static inline CURLcode oton_curl_set_long(CURL *curl, CURLoption option, long value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode oton_curl_set_string(CURL *curl, CURLoption option, const char *value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode oton_curl_set_pointer(CURL *curl, CURLoption option, void *value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode oton_curl_set_off(CURL *curl, CURLoption option, curl_off_t value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode oton_curl_set_write_function(CURL *curl, curl_write_callback function) { return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, function); }
static inline CURLcode oton_curl_set_header_function(CURL *curl, curl_write_callback function) { return curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, function); }
static inline CURLcode oton_curl_set_read_function(CURL *curl, curl_read_callback function) { return curl_easy_setopt(curl, CURLOPT_READFUNCTION, function); }
static inline CURLcode oton_curl_set_progress_function(CURL *curl, curl_xferinfo_callback function) { return curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, function); }
static inline long oton_curl_response_code(CURL *curl) { long code = 0; curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code); return code; }
static inline const char *oton_curl_content_type(CURL *curl) { char *type = NULL; curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type); return type; }
static inline long oton_curl_os_errno(CURL *curl) { long value = 0; curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &value); return value; }
static inline const char *oton_curl_effective_url(CURL *curl) { char *url = NULL; curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &url); return url; }

static inline void *oton_curl_private(CURL *curl) { char *value = NULL; curl_easy_getinfo(curl, CURLINFO_PRIVATE, &value); return value; }
static inline CURLMcode oton_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) { return curl_multi_setopt(multi, option, value); }
/* What a write callback returns to hold a transfer (the bytes are handed over again after oton_curl_resume). */
static inline size_t oton_curl_write_pause(void) { return CURL_WRITEFUNC_PAUSE; }
/* Holds (1) or resumes (0) reading a transfer. */
static inline CURLcode oton_curl_hold_receiving(CURL *curl, int hold) { return curl_easy_pause(curl, hold ? CURLPAUSE_RECV : CURLPAUSE_CONT); }

#endif
