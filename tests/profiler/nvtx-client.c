/*
 * A CPU-only client of the injection library, for CI (no GPU needed): NVTX v3 is header-only,
 * so with NVTX_INJECTION64_PATH set its first call loads libcgscope-cupti.so, whose hooks then
 * record every push and pop. CUDA is never initialised, so CUPTI stays idle; what is tested is
 * the NVTX side, the per-thread buffers, the writer thread, and the flush at exit, on SIGTERM
 * and never in a forked child.
 *
 *   nvtx-client plain       main thread: submod_0 x3; a thread: submod_1 holding "inner" x2
 *   nvtx-client many N      N pushes and pops of submod_0 (fills buffers: the writer writes)
 *   nvtx-client fork        plain, then a forked child pushes and exits through exit()
 *   nvtx-client term        plain, then a range left open and SIGTERM to itself
 */
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        nvtxRangePushA("cgscope:submod_1");
        nvtxRangePushA("inner");
        usleep(1000);
        nvtxRangePop();
        nvtxRangePop();
    }
    return NULL;
}

static void plain(void)
{
    pthread_t t;
    for (int i = 0; i < 3; i++) {
        nvtxRangePushA("cgscope:submod_0");
        usleep(1000);
        nvtxRangePop();
    }
    if (pthread_create(&t, NULL, worker, NULL) == 0)
        pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "plain";
    if (strcmp(mode, "many") == 0) {
        long n = argc > 2 ? atol(argv[2]) : 100000;
        for (long i = 0; i < n; i++) {
            nvtxRangePushA("cgscope:submod_0");
            nvtxRangePop();
        }
        return 0;
    }
    plain();
    if (strcmp(mode, "fork") == 0) {
        int st = 0;
        pid_t pid = fork();
        if (pid == 0) {
            nvtxRangePushA("cgscope:child");
            nvtxRangePop();
            exit(0);
        }
        waitpid(pid, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
    }
    if (strcmp(mode, "term") == 0) {
        nvtxRangePushA("cgscope:submod_9");
        raise(SIGTERM);
        sleep(10);
        return 4;
    }
    return 0;
}
