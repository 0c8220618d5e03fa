#define _GNU_SOURCE
#include "oton_crash_guard.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

static _Thread_local const char *current_prefix;
static _Thread_local int altstack_ready;

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

static void write_all(const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(STDERR_FILENO, text, length);
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
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

static void on_fatal_signal(int signal, siginfo_t *info, void *context) {
    const char *prefix = current_prefix;
    size_t index;
    if (prefix != NULL) {
        const char *name = signal_name(signal);
        current_prefix = NULL; /* said once, even if the next handler faults again */
        write_all(prefix, strlen(prefix));
        write_all(name, strlen(name));
        write_all(hint, strlen(hint));
    }
    for (index = 0; index < FATAL_COUNT && fatal_signals[index] != signal; index++) {}
    if (index < FATAL_COUNT) {
        struct sigaction *before = &previous_actions[index];
        if ((before->sa_flags & SA_SIGINFO) && before->sa_sigaction != NULL) {
            before->sa_sigaction(signal, info, context);
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

const char *oton_crash_guard_enter(const char *prefix) {
    const char *before = current_prefix;
    ensure_altstack();
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    current_prefix = prefix;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return before;
}

void oton_crash_guard_leave(const char *previous) {
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    current_prefix = previous;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void oton_crash_guard_isolated_child_restartable(void) {
    hint = isolated_hint;
}

void oton_crash_guard_become_isolated_child(void) {
    hint = isolated_start_hint;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
}
