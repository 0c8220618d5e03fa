/* See oton_process_keeper.h. Plain C: signal handling, prctl and waitpid(-1). */
#define _GNU_SOURCE
#include "oton_process_keeper.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t end_requested;

static void on_end_request(int signal_number) {
    (void)signal_number;
    end_requested = 1;
}

/* The parent pid in /proc/PID/stat (after the command name, which may hold spaces and ')'). */
static pid_t parent_of(const char *pid_text) {
    char path[64], buffer[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid_text);
    FILE *file = fopen(path, "re");
    if (!file) return -1;
    size_t got = fread(buffer, 1, sizeof buffer - 1, file);
    fclose(file);
    buffer[got] = 0;
    char *close = strrchr(buffer, ')');
    if (!close) return -1;
    char state;
    int parent;
    if (sscanf(close + 1, " %c %d", &state, &parent) != 2) return -1;
    return (pid_t)parent;
}

/* SIGKILL to every child of this process; how many there were. */
static int kill_children(void) {
    DIR *proc = opendir("/proc");
    if (!proc) return 0;
    pid_t self = getpid();
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(proc)) != NULL) {
        if (!isdigit((unsigned char)entry->d_name[0])) continue;
        if (parent_of(entry->d_name) != self) continue;
        kill((pid_t)atoi(entry->d_name), SIGKILL);
        count++;
    }
    closedir(proc);
    return count;
}

/* Kills and reaps descendants until none is left: a killed process's children re-parent here. */
static void end_descendants(void) {
    int status;
    for (int round = 0; round < 10000; round++) {
        int killed = kill_children();
        while (waitpid(-1, &status, WNOHANG) > 0) {}
        if (killed == 0 && waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD) return;
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
}

/* Ends this process as the worker ended. */
static void end_as(int status) {
    if (WIFSIGNALED(status)) {
        int signal_number = WTERMSIG(status);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none); /* the worker's crash is the one that counts */
        signal(signal_number, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, signal_number);
        sigprocmask(SIG_UNBLOCK, &only, NULL);
        raise(signal_number);
        _exit(128 + signal_number);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

int oton_spawn_close_from(posix_spawn_file_actions_t *actions, int first_closed) {
    return posix_spawn_file_actions_addclosefrom_np(actions, first_closed);
}

int oton_process_keeper_run(char *const argv[], int handed_fd) {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t parent = getppid();
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_end_request;
    sigemptyset(&action.sa_mask);
    sigaction(SIGUSR1, &action, NULL);
    /* oton may start us from a thread that blocks signals (a dispatch worker): the mask is inherited. */
    sigset_t request;
    sigemptyset(&request);
    sigaddset(&request, SIGUSR1);
    sigprocmask(SIG_UNBLOCK, &request, NULL);

    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults, empty;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGUSR1);
    sigemptyset(&empty);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &empty);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    /* The worker gets stdin, stdout, stderr and the socket: nothing else this process holds. */
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    for (int fd = 3; fd < handed_fd; fd++) {
        if (fcntl(fd, F_GETFD) != -1) posix_spawn_file_actions_addclose(&actions, fd);
    }
    oton_spawn_close_from(&actions, handed_fd + 1);
    pid_t worker;
    int spawned = posix_spawn(&worker, "/proc/self/exe", &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (spawned != 0) return spawned;
    close(handed_fd);

    int killed_worker = 0;
    for (;;) {
        int status;
        pid_t reaped;
        while ((reaped = waitpid(-1, &status, WNOHANG)) > 0) {
            if (reaped == worker) {
                end_descendants();
                end_as(status);
            }
        }
        if (!killed_worker && (end_requested || getppid() != parent)) {
            kill(worker, SIGKILL);
            killed_worker = 1;
        }
        /* Polled, not waited for: a signal may be delivered to another thread of this process. */
        struct timespec pause = {0, 50000000};
        nanosleep(&pause, NULL);
    }
}
