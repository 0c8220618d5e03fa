/*
 * Names the plugin that crashed the process. The host records, per thread,
 * which plugin callback it is running (a preformatted line); a handler for the
 * fatal signals writes that line with write(2) only (async-signal-safe), then
 * hands the signal on to the handler that was there before (Swift's backtracer)
 * or to the default action, so the process still dies by the same signal.
 */
#ifndef OTON_CRASH_GUARD_H
#define OTON_CRASH_GUARD_H

#include <stddef.h>
#include <stdint.h>

/* Who runs on a thread now: `line` is the start of the line said on a crash ("oton: plugin ID
 * (FILE) crashed in on_event: "; the handler adds the signal's name and a hint). `recorded_hint`
 * (NULL: none) is the hint said instead of the usual one when the crash is in-process and its line
 * was appended to the record file (oton_crash_guard_record_to): it says that the next start goes
 * without the plugin. Both must stay valid while the culprit is set (the host never frees them). */
struct oton_crash_guard_culprit {
    const char *line;
    const char *recorded_hint;
};

/* Installs the handlers once (later calls do nothing). Call after the Swift
 * runtime has installed its own, so that they are chained, not replaced.
 * When a fatal signal is chained to Swift's handler (its backtracer), a small
 * guardian process is forked first: it kills swift-backtrace if the crashed
 * process ends before it (the backtracer inherits its own end of the runtime's
 * memory-server socket and would wait on it for ever) or if it runs longer than
 * a minute (the runtime then says the backtrace failed and the process dies by
 * its signal). A backtracer whose crashed process died before the guardian's
 * first look (it was handed to a subreaper or init) is found by its name, its
 * process group and session and its start, and ended too. oton installs this at
 * the start of main; OTON_CRASH_GUARD_TEST_DELAY_MS (tests only) makes the
 * guardian's first look that late. Thread: any. */
void oton_crash_guard_install(void);

/* Marks the calling thread as running plugin code of `culprit` (see above; it
 * must stay valid while it is set). Also gives the thread an alternate signal
 * stack, once, so that a plugin's stack overflow is reported too. Returns the
 * culprit that was set before (for nesting); pass it to oton_crash_guard_leave.
 * Thread: the calling thread only. */
const struct oton_crash_guard_culprit *oton_crash_guard_enter(const struct oton_crash_guard_culprit *culprit);

/* Restores what oton_crash_guard_enter returned. Thread: the calling thread only. */
void oton_crash_guard_leave(const struct oton_crash_guard_culprit *previous);

/* A plugin's filter (ABI 1.6) as the effect chain calls it, with the audio thread marked as inside
 * it: `oton_crash_guard_call_filter` is the function and a `struct oton_crash_guard_filter` its context.
 * The struct must outlive every call (the host never frees it). The first call on a thread maps its
 * alternate signal stack (once). Thread: the audio thread (any). */
struct oton_crash_guard_filter {
    void (*function)(void *context, float *samples, size_t frames, uint32_t channels, uint32_t rate);
    void *context;
    const struct oton_crash_guard_culprit *culprit;
};
void oton_crash_guard_call_filter(void *guarded, float *samples, size_t frames, uint32_t channels, uint32_t rate);

/* From now on, a crash in a culprit with a `recorded_hint`, in this process (not an isolated
 * child), appends its line and signal to `path` (open/write/close in the handler: the folder must
 * exist) and says that hint. `path` must stay valid (never freed); NULL stops. Thread: any. */
void oton_crash_guard_record_to(const char *path);

/* For the validator's guard pages: when a SIGSEGV or SIGBUS of the calling thread faults at an
 * address in [start, start + length), the handler writes `line` (a whole line, with its newline)
 * before the plugin's line. `line` NULL stops watching; it must stay valid while it is set.
 * Thread: the calling thread only. */
void oton_crash_guard_watch(const void *start, size_t length, const char *line);

/* In an isolated plugin's child process (`oton plugin-host`): the line's hint
 * then says that oton goes on without the plugin while it starts (its entry
 * function and create(): oton reports it as not started and does not restart
 * it), and that oton restarts it once it has started; and the child gets
 * SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG), so it never outlives oton.
 * Thread: the main thread, before any plugin code runs. */
void oton_crash_guard_become_isolated_child(void);

/* In the isolated child: a crash from now on is one oton restarts (the hint
 * says so): create() returned an instance, or this child is itself a restart,
 * which oton retries when it fails to start. Thread: any, once. */
void oton_crash_guard_isolated_child_restartable(void);

#endif
