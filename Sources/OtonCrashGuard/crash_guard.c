#define _GNU_SOURCE
#include "oton_crash_guard.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Thread_local const struct oton_crash_guard_culprit *current_culprit;
/* oton_crash_guard_record_to: the file a crashed in-process plugin's line is appended to (NULL: none). */
static const char *volatile record_path;
static _Thread_local int altstack_ready;
/* oton_crash_guard_watch: a region of this thread's and the line said when a fault lands in it. */
static _Thread_local const char *watched_start;
static _Thread_local size_t watched_length;
static _Thread_local const char *watched_line;

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous_actions[FATAL_COUNT];
static int installed;

static const char in_process_hint[] = "; run it with \"isolation\": \"process\" or report it to its author\n";
static const char isolated_hint[] = " in its isolated process; oton goes on and restarts it\n";
/* The first start, before create() returned: oton does not restart it (IsolatedPluginProcess says "crashed while starting"). */
static const char isolated_start_hint[] = " in its isolated process while starting; oton goes on without it\n";
static const char *volatile hint = in_process_hint;
enum { ALTSTACK_SIZE = 256 * 1024 };

static void write_all_to(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, text, length);
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

static void write_all(const char *text, size_t length) {
    write_all_to(STDERR_FILENO, text, length);
}

/* Appends "<line><signal>\n" to the record file; 1 when it was written. Async-signal-safe. */
static int record_crash(const char *line, const char *name) {
    const char *path = record_path;
    int fd;
    if (path == NULL) return 0;
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return 0;
    write_all_to(fd, line, strlen(line));
    write_all_to(fd, name, strlen(name));
    write_all_to(fd, "\n", 1);
    close(fd);
    return 1;
}

static const char *signal_name(int signal) {
    switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    default: return "a fatal signal";
    }
}


/* ---- The backtracer's guardian (issue 39, N12) ----
 * Swift's handler (the one chained to) starts swift-backtrace and waits for it, serving it the
 * crashed process's memory over a socketpair it creates without close-on-exec: the backtracer
 * inherits its own peer end. When the crashed process dies before the backtracer is done (its
 * in-process memory server faulted on this machine, after "Registers:"; or a SIGKILL), the
 * backtracer waits on that socket for ever (75 MB each). So, before chaining, a tiny process is
 * forked that keeps a pidfd of the crashed process and of the backtracer once it appears among
 * the crashing thread's children, and kills the backtracer when the crashed process is gone and
 * it has not ended within a short grace, or when it has run for a minute (it also stalled for
 * minutes with the crashed process alive). Async-signal-safe: raw syscalls only. */

/* The backtracer's whole time (a debug build symbolicated under load took under 10 s when it did not
 * stall), its grace once the crashed process is gone, and how often the guardian looks for it. */
enum { GUARDIAN_LIMIT_MS = 60000, GUARDIAN_GRACE_MS = 1000, GUARDIAN_LOOK_MS = 20 };

static int pidfd_of(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void append_number(char **cursor, long value) {
    char digits[24];
    int count = 0;
    do { digits[count++] = (char)('0' + value % 10); value /= 10; } while (value > 0);
    while (count > 0) *(*cursor)++ = digits[--count];
}

/* Reads a small /proc file into `text` (NUL-terminated, at most `size` - 1 bytes); its length, or 0. */
static ssize_t read_proc_file(const char *path, char *text, size_t size) {
    ssize_t length;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    length = read(fd, text, size - 1);
    close(fd);
    if (length <= 0) return 0;
    text[length] = 0;
    return length;
}

/* The first child of `thread` (in `process`) other than `self`, from /proc/PID/task/TID/children; 0 if none. */
static pid_t other_child(pid_t process, pid_t thread, pid_t self) {
    char path[96], text[256], *cursor = path;
    const char *parts[] = {"/proc/", "/task/", "/children"};
    ssize_t length;
    int index;
    pid_t value = 0;
    memcpy(cursor, parts[0], 6); cursor += 6;
    append_number(&cursor, process);
    memcpy(cursor, parts[1], 6); cursor += 6;
    append_number(&cursor, thread);
    memcpy(cursor, parts[2], 10); cursor += 10;
    *cursor = 0;
    length = read_proc_file(path, text, sizeof text);
    if (length == 0) return 0;
    for (index = 0; index <= length; index++) {
        char c = text[index];
        if (c >= '0' && c <= '9') { value = value * 10 + (c - '0'); continue; }
        if (value != 0 && value != self) return value;
        value = 0;
    }
    return 0;
}

/* The fields of /proc/PID/stat after the command's closing parenthesis, by index (0: the state,
 * 1: the parent, 2: the process group, 3: the session, 19: the start time in ticks since boot). */
enum { STAT_PARENT = 1, STAT_GROUP = 2, STAT_SESSION = 3, STAT_START = 19, STAT_FIELDS = 20 };

/* Reads /proc/<pid>/stat: its command name into `name` (at most 15 characters, as the
 * kernel keeps it) and the first STAT_FIELDS numbers after it into `fields`. 0 when it could not. */
static int read_stat(pid_t pid, char name[16], unsigned long long fields[STAT_FIELDS]) {
    char path[48], text[512], *cursor = path, *end, *last_paren = NULL;
    ssize_t length;
    int index, count = 0;
    memcpy(cursor, "/proc/", 6); cursor += 6;
    append_number(&cursor, pid);
    memcpy(cursor, "/stat", 6);
    length = read_proc_file(path, text, sizeof text);
    if (length == 0) return 0;
    for (end = text; *end; end++) if (*end == ')') last_paren = end;  /* the last one: a name may hold ')' */
    {
        char *open_paren = memchr(text, '(', (size_t)length);
        if (open_paren == NULL || last_paren == NULL || last_paren < open_paren) return 0;
        index = (int)(last_paren - open_paren - 1);
        if (index > 15) index = 15;
        memcpy(name, open_paren + 1, (size_t)index);
        name[index] = 0;
    }
    cursor = last_paren + 2;
    if (*cursor) cursor += 2;  /* the state letter and its space */
    fields[0] = 0;
    for (count = 1; count < STAT_FIELDS && *cursor; count++) {
        unsigned long long value = 0;
        int negative = *cursor == '-';
        if (negative) cursor++;
        while (*cursor >= '0' && *cursor <= '9') value = value * 10 + (unsigned long long)(*cursor++ - '0');
        fields[count] = negative ? 0 : value;
        while (*cursor == ' ') cursor++;
    }
    return count == STAT_FIELDS;
}

struct oton_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* A swift-backtrace the crashed process started that the guardian did not see while it was still the
 * crashed process's child: the crashed process died first (under load the guardian may not run in
 * between), so it was handed to a subreaper or to init. Found by its name, the process group and the
 * session it shares with the guardian (both inherited from the crashed process) and a start no earlier
 * than the guardian's (it was started after the guardian was forked). 0 when there is none. */
static pid_t orphaned_backtracer(pid_t crashed) {
    char name[16], buffer[4096];
    unsigned long long own[STAT_FIELDS], other[STAT_FIELDS];
    pid_t found = 0;
    long length;
    int fd;
    if (!read_stat((pid_t)syscall(SYS_getpid), name, own)) return 0;
    fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    while (found == 0 && (length = syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0) {
        long offset = 0;
        while (offset < length && found == 0) {
            struct oton_dirent64 *entry = (struct oton_dirent64 *)(buffer + offset);
            pid_t pid = 0;
            const char *digit = entry->d_name;
            offset += entry->d_reclen;
            while (*digit >= '0' && *digit <= '9') pid = pid * 10 + (*digit++ - '0');
            if (*digit != 0 || pid <= 0 || pid == crashed) continue;
            if (!read_stat(pid, name, other) || strcmp(name, "swift-backtrace") != 0) continue;
            if (other[STAT_PARENT] == (unsigned long long)crashed) continue;  /* not orphaned yet */
            if (other[STAT_GROUP] == own[STAT_GROUP] && other[STAT_SESSION] == own[STAT_SESSION] && other[STAT_START] >= own[STAT_START]) found = pid;
        }
    }
    close(fd);
    return found;
}

/* For the tests only: the guardian's first look is this late (OTON_CRASH_GUARD_TEST_DELAY_MS, read at
 * install), so that the crashed process can die before it and the orphan's search is what finds the
 * backtracer (the race a loaded machine ran into). */
static long guardian_delay_ms;

static void guard_backtracer(pid_t crashed, pid_t thread) {
    pid_t self = (pid_t)syscall(SYS_getpid);
    int crashed_fd, tracer_fd = -1;
    /* Nothing of the crashed process's: a pipe the guardian held would keep its reader waiting. */
    syscall(SYS_close_range, 0U, ~0U, 0U);
    crashed_fd = pidfd_of(crashed);
    if (crashed_fd < 0) _exit(0);
    if (guardian_delay_ms > 0) {
        struct timespec delay = {guardian_delay_ms / 1000, (guardian_delay_ms % 1000) * 1000000L};
        nanosleep(&delay, NULL);
    }
    for (;;) {
        struct pollfd ended = {crashed_fd, POLLIN, 0};
        int gone = poll(&ended, 1, GUARDIAN_LOOK_MS) > 0;
        if (tracer_fd < 0 && !gone) {
            pid_t tracer = other_child(crashed, thread, self);
            if (tracer > 0) tracer_fd = pidfd_of(tracer);
            if (tracer_fd >= 0) {
                /* Found: it ends, or the crashed process does, or its time is up. */
                struct pollfd both[2] = {{crashed_fd, POLLIN, 0}, {tracer_fd, POLLIN, 0}};
                int waited = 0, ready = 0;
                while (waited < GUARDIAN_LIMIT_MS && (ready = poll(both, 2, 1000)) <= 0) {
                    if (ready == 0) waited += 1000;
                }
                if (both[1].revents & POLLIN) _exit(0); /* the backtracer is done: nothing to guard */
                if (!(both[0].revents & POLLIN)) {
                    /* Stalled with the crashed process alive (seen under load: no line after "Backtracing
                     * from"): the runtime then says "failed" and the process dies by its signal. */
                    syscall(SYS_pidfd_send_signal, tracer_fd, SIGKILL, NULL, 0U);
                    _exit(0);
                }
                gone = 1;
            }
        }
        if (gone) break;
    }
    if (tracer_fd < 0) {
        /* Gone before the guardian saw its backtracer: one may be waiting on its socket all the same. */
        pid_t orphan = orphaned_backtracer(crashed);
        if (orphan > 0) tracer_fd = pidfd_of(orphan);
    }
    if (tracer_fd >= 0) {
        struct pollfd done = {tracer_fd, POLLIN, 0};
        if (poll(&done, 1, GUARDIAN_GRACE_MS) <= 0) syscall(SYS_pidfd_send_signal, tracer_fd, SIGKILL, NULL, 0U);
    }
    _exit(0);
}

static void start_guardian(void) {
    pid_t crashed = (pid_t)syscall(SYS_getpid), thread = (pid_t)syscall(SYS_gettid);
    /* A raw fork: no atfork handlers run in a crashing process. */
    long child = syscall(SYS_clone, (unsigned long)SIGCHLD, 0UL, 0UL, 0UL, 0UL);
    if (child == 0) guard_backtracer(crashed, thread);
}

static void on_fatal_signal(int signal, siginfo_t *info, void *context) {
    const struct oton_crash_guard_culprit *culprit = current_culprit;
    size_t index;
    if (watched_line != NULL && info != NULL && (signal == SIGSEGV || signal == SIGBUS) && info->si_code > 0) {
        const char *address = (const char *)info->si_addr;
        if (address >= watched_start && (size_t)(address - watched_start) < watched_length) {
            const char *line = watched_line;
            watched_line = NULL;
            write_all(line, strlen(line));
        }
    }
    if (culprit != NULL && culprit->line != NULL) {
        const char *name = signal_name(signal);
        const char *said = hint;
        current_culprit = NULL; /* said once, even if the next handler faults again */
        write_all(culprit->line, strlen(culprit->line));
        write_all(name, strlen(name));
        /* In-process (oton itself ends): the next start goes without the plugin, when that is written down. */
        if (hint == in_process_hint && culprit->recorded_hint != NULL && record_crash(culprit->line, name)) said = culprit->recorded_hint;
        write_all(said, strlen(said));
    }
    for (index = 0; index < FATAL_COUNT && fatal_signals[index] != signal; index++) {}
    if (index < FATAL_COUNT) {
        struct sigaction *before = &previous_actions[index];
        if ((before->sa_flags & SA_SIGINFO) && before->sa_sigaction != NULL) {
            start_guardian();
            before->sa_sigaction(signal, info, context);
            /* A signal sent with kill() is not raised again by returning: Swift's handler has put
             * back the default action, so raise it (pending while this handler runs) and die by it. */
            if (info == NULL || info->si_code <= 0) {
                struct sigaction now;
                if (sigaction(signal, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_DFL) raise(signal);
            }
            return;
        }
        if (!(before->sa_flags & SA_SIGINFO) && before->sa_handler != SIG_DFL && before->sa_handler != SIG_IGN) {
            before->sa_handler(signal);
            return;
        }
    }
    /* Default action: restore it and let the signal happen again. A fault re-executes the
     * instruction on return; a raised signal is pending (blocked while we run) and arrives then. */
    {
        struct sigaction fallback;
        memset(&fallback, 0, sizeof fallback);
        fallback.sa_handler = SIG_DFL;
        sigemptyset(&fallback.sa_mask);
        sigaction(signal, &fallback, NULL);
        if (info == NULL || info->si_code <= 0) raise(signal);
    }
}

void oton_crash_guard_install(void) {
    size_t index;
    if (__atomic_exchange_n(&installed, 1, __ATOMIC_SEQ_CST)) return;
    {
        const char *delay = getenv("OTON_CRASH_GUARD_TEST_DELAY_MS");
        guardian_delay_ms = delay != NULL ? strtol(delay, NULL, 10) : 0;
        if (guardian_delay_ms < 0 || guardian_delay_ms > 10000) guardian_delay_ms = 0;
    }
    for (index = 0; index < FATAL_COUNT; index++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_fatal_signal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(fatal_signals[index], &action, &previous_actions[index]);
    }
}

static void ensure_altstack(void) {
    stack_t current;
    if (altstack_ready) return;
    altstack_ready = 1;
    if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
    {
        void *memory = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        stack_t stack;
        if (memory == MAP_FAILED) return;
        stack.ss_sp = memory;
        stack.ss_size = ALTSTACK_SIZE;
        stack.ss_flags = 0;
        if (sigaltstack(&stack, NULL) != 0) munmap(memory, ALTSTACK_SIZE);
    }
}

const struct oton_crash_guard_culprit *oton_crash_guard_enter(const struct oton_crash_guard_culprit *culprit) {
    const struct oton_crash_guard_culprit *before = current_culprit;
    ensure_altstack();
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    current_culprit = culprit;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return before;
}

void oton_crash_guard_leave(const struct oton_crash_guard_culprit *previous) {
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    current_culprit = previous;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void oton_crash_guard_call_filter(void *guarded, float *samples, size_t frames, uint32_t channels, uint32_t rate) {
    const struct oton_crash_guard_filter *filter = guarded;
    const struct oton_crash_guard_culprit *before = oton_crash_guard_enter(filter->culprit);
    filter->function(filter->context, samples, frames, channels, rate);
    oton_crash_guard_leave(before);
}

void oton_crash_guard_record_to(const char *path) {
    record_path = path;
}

void oton_crash_guard_watch(const void *start, size_t length, const char *line) {
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    watched_line = NULL;
    watched_start = start;
    watched_length = length;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    watched_line = line;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void oton_crash_guard_isolated_child_restartable(void) {
    hint = isolated_hint;
}

void oton_crash_guard_become_isolated_child(void) {
    hint = isolated_start_hint;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
}
