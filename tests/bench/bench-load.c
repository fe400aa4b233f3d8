/*
 * Benchmark: load graph JSON files (argv) and report time, MB/s, and peak
 * memory per node beyond the JSON text. Each file is measured in a fresh
 * child process so that peak RSS belongs to that load alone.
 * Targets (issue 2): >= 100 MB/s of JSON, < 1 KB/node beyond the text.
 * Wall and CPU (user + system) time are both shown: on a loaded machine the
 * wall clock includes waiting for a core.
 * `bench-load --best N FILE` loads FILE N times in this process and prints the best wall time
 * in seconds (tests/bench/ratios.py sets it beside simdjson's parse of the same file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/readers/load.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static int measure(const char *path)
{
    struct stat st;
    struct cgs_diag d = CGS_DIAG_INIT;
    struct rusage ru;
    long base;
    double t0, t1;
    struct cgs_graph *g;

    if (stat(path, &st)) {
        perror(path);
        return 1;
    }
    struct rusage r0, r1;
    base = rss_kb();
    getrusage(RUSAGE_SELF, &r0);
    t0 = now();
    g = cgs_graph_load_json(path, &d);
    t1 = now();
    getrusage(RUSAGE_SELF, &r1);
    double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec -
                          r0.ru_stime.tv_sec) +
                 (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec -
                          r0.ru_stime.tv_usec) * 1e-6;
    if (!g) {
        fprintf(stderr, "%s: %s\n", path, d.msg);
        return 1;
    }
    getrusage(RUSAGE_SELF, &ru);
    double mb = (double)st.st_size / 1e6;
    double beyond = ((double)ru.ru_maxrss - (double)base) * 1024.0 - (double)st.st_size;
    printf("load  %-12s %8u nodes %7.1f MB  wall %7.1f ms %6.1f MB/s  cpu %7.1f ms %6.1f MB/s  "
           "peak %4.0f B/node beyond the text (arena %3.0f B/node)\n",
           strrchr(path, '/') ? strrchr(path, '/') + 1 : path, g->n_nodes, mb, (t1 - t0) * 1e3,
           mb / (t1 - t0), cpu * 1e3, mb / cpu, beyond / g->n_nodes,
           (double)g->arena->reserved / g->n_nodes);
    cgs_graph_free(g);
    return 0;
}

static int best_of(int n, const char *path)
{
    double best = 1e30;
    for (int i = 0; i < (n > 0 ? n : 1); i++) {
        struct cgs_diag d = CGS_DIAG_INIT;
        double t0 = now();
        struct cgs_graph *g = cgs_graph_load_json(path, &d);
        double t1 = now();
        if (!g) {
            fprintf(stderr, "%s: %s\n", path, d.msg);
            return 1;
        }
        cgs_graph_free(g);
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    printf("%.6f\n", best);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 0;
    if (argc == 4 && !strcmp(argv[1], "--best"))
        return best_of(atoi(argv[2]), argv[3]);
    for (int i = 1; i < argc; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0)
        {
            int r = measure(argv[i]);
            fflush(stdout);
            _exit(r);
        }
        int status;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status))
            rc = 1;
    }
    return rc;
}
