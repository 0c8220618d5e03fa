/* The floor for recording many stations: libcurl's multi interface reading every URL given
 * (with Icy-MetaData: 1, as a recorder asks) in one process, waking every TICK_MS and discarding
 * what arrived. Nothing is parsed or written. Built and run by Benchmarks/record_many.
 *
 *     cc -O2 -o curl_multi_floor curl_multi_floor.c -lcurl
 *     ./curl_multi_floor TICK_MS URL...       (ends on SIGTERM or SIGINT)
 */
#include <curl/curl.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

static volatile sig_atomic_t stop;
static void on_signal(int number) { (void)number; stop = 1; }
static size_t discard(char *data, size_t size, size_t count, void *user) { (void)data; (void)user; return size * count; }

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    long tick = atol(argv[1]);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *multi = curl_multi_init();
    struct curl_slist *headers = curl_slist_append(NULL, "Icy-MetaData: 1");
    for (int i = 2; i < argc; i++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, argv[i]);
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
        curl_multi_add_handle(multi, easy);
    }
    int running = 1;
    while (!stop && running) {
        curl_multi_perform(multi, &running);
        if (tick > 0) {
            struct timespec pause = {tick / 1000, (tick % 1000) * 1000000L};
            nanosleep(&pause, NULL);
        } else {
            curl_multi_poll(multi, NULL, 0, 1000, NULL);
        }
    }
    return 0;
}
