/*
 * Not a GStreamer plugin: a library that kills the process that loads it. A fresh GStreamer
 * registry loads every new file of GST_PLUGIN_PATH in its scanner (gst-plugin-scanner); this one
 * kills that scanner, and GStreamer starts a new one for the next file, each time through
 * g_spawn_async_with_pipes, whose pipes have no close-on-exec until the scanner runs. A folder of
 * copies makes gst_init start scanners one after another for seconds: the moments at which a
 * process spawned by another thread of oton inherited those pipes (issue 39).
 */
#include <signal.h>

__attribute__((constructor)) static void kill_the_scanner(void) {
    raise(SIGKILL);
}
