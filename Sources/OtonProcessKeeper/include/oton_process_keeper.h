/*
 * The keeper of an isolated plugin's process tree (`oton plugin-host`). The
 * process oton starts becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER)
 * and runs the worker, the process that loads the plugin, as its child; every
 * process the plugin forks is then the keeper's descendant, even one that calls
 * setsid() and outlives its parent (orphans re-parent to the keeper, not to
 * init). When the worker ends, the keeper kills every descendant left, reaps
 * them, and ends as the worker did (the same signal or exit status), so oton's
 * waitpid() sees the plugin's crash and nothing of the plugin outlives it.
 *
 * SIGUSR1 asks the keeper to end the worker (SIGKILL) and so everything; it also
 * does that when its parent, oton, is gone. SIGINT and SIGTERM are ignored: oton
 * decides when the plugin ends (destroy over the socket, or SIGUSR1).
 */
#ifndef OTON_PROCESS_KEEPER_H
#define OTON_PROCESS_KEEPER_H

#include <spawn.h>

/* Starts /proc/self/exe with `argv` (NULL-terminated) as the worker, closes
 * `handed_fd` (the worker's socket: only the worker speaks to oton), and keeps
 * the tree until the worker ends. Never returns once the worker started;
 * returns the posix_spawn error when it could not start.
 * Thread: the main thread, before any other thread exists. */
int oton_process_keeper_run(char *const argv[], int handed_fd);

/* Adds to `actions` the closing, in the child, of every descriptor from `first_closed` up, after
 * the actions added before it (the dup2 of each descriptor the child is given, below
 * `first_closed`). So a child holds only what it is given, whatever thread of the parent opened
 * the rest and whether or not that thread set close-on-exec: GLib's g_spawn opens its pipes
 * without it, and a child spawned from another thread at that moment held their write ends for
 * ever (GStreamer's registry update never ended, issue 39). Returns 0 or an errno value. */
int oton_spawn_close_from(posix_spawn_file_actions_t *actions, int first_closed);

#endif
