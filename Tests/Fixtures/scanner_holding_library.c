/*
 * Not a GStreamer plugin: a library that holds the scanner that loads it (gst-plugin-scanner)
 * until the oton that started the scanner is gone: its constructor never returns, and the kernel
 * kills the scanner when the thread of oton that spawned it ends (PR_SET_PDEATHSIG). GStreamer's
 * registry update, and so gst_init, waits as long: a start stuck in gst_init, as in issue 39,
 * that leaves nothing behind.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

__attribute__((constructor)) static void hold_the_scanner(void) {
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1); /* oton was already gone */
    for (;;) pause();
}
