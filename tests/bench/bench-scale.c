/*
 * Scaling: no command more than doubles its time when its graph doubles. Generates graphs of
 * 40k, 80k, 160k and 320k nodes in two shapes (gen-graph: stacked blocks; gen-graph --shared:
 * blocks sharing their six weights, so a split has ~2 pieces per block, every piece taking the
 * shared inputs, and as many cudagraph findings as compiled pieces), runs whole cgscope
 * processes on each (best CPU time of 20, 10, 5 and 5 runs, user + system, from wait4, the
 * sizes' runs interleaved), and fails when the whole range (8x the nodes) costs more than
 * 1.25 x 8 times as much, or one doubling more than 3x
 * (CGS_SCALE_SLACK=1.25 and CGS_SCALE_STEP=3 change them): one step alone is at the mercy of
 * this machine's noise, the whole range is not, and a quadratic path shows 64x there. A
 * quadratic term too small to show at these sizes is not caught. The commands read their graphs
 * on one thread (CGSCOPE_THREADS=1): CPU time is the measure, and a pipeline's wake-ups and
 * page faults on a loaded machine are noise in it, not the growth this looks for.
 * Usage (make bench): bench-scale CGSCOPE GEN-GRAPH DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

static double cpu_of(char *const argv[])
{
    struct rusage ru;
    int st;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        dup2(fd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) > 1)
        return -1;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int gen(const char *gen_graph, long n, int shared, const char *path)
{
    static char cmd[70000];
    if (access(path, R_OK) == 0)
        return 0;
    snprintf(cmd, sizeof(cmd), "'%s' %ld%s > '%s.tmp' && mv -f '%s.tmp' '%s'", gen_graph, n,
             shared ? " --shared" : "", path, path, path);
    return system(cmd);
}

int main(int argc, char **argv)
{
    static const long sizes[] = {40000, 80000, 160000, 320000};
    setenv("CGSCOPE_THREADS", "1", 1);
    enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
    /* runs per size, the best kept: more of the small ones, whose best is most at the mercy
       of noise */
    static const int runs[NS] = {20, 10, 5, 5};
    static const char *const cmds[][6] = {
        {"info", "--json", NULL},
        {"split", "--split-ops", "aten._softmax.default", "--json", NULL},
        {"shapes", "--reinfer", "--json", NULL},
        {"layout", "--json", NULL},
        {"dot", "--split-ops", "aten._softmax.default", "--collapse", "pieces", NULL},
    };
    double slack = getenv("CGS_SCALE_SLACK") ? atof(getenv("CGS_SCALE_SLACK")) : 1.25;
    double step_max = getenv("CGS_SCALE_STEP") ? atof(getenv("CGS_SCALE_STEP")) : 3.0;
    int bad = 0;

    if (argc < 4) {
        fprintf(stderr, "usage: bench-scale CGSCOPE GEN-GRAPH DIR\n");
        return 2;
    }
    printf("scaling: best CPU time of 20/10/5/5 whole processes, ratio per doubling (fails above %.1f) "
           "and over the range (fails above %.1f)\n", step_max, 8 * slack);
    for (int shared = 0; shared < 2; shared++) {
        char paths[NS][4096];
        for (int i = 0; i < NS; i++) {
            snprintf(paths[i], sizeof(paths[i]), "%s/scale%s-%ld.json", argv[3],
                     shared ? "-shared" : "", sizes[i]);
            if (gen(argv[2], sizes[i], shared, paths[i])) {
                fprintf(stderr, "bench-scale: cannot generate %s\n", paths[i]);
                return 2;
            }
        }
        for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
            double t[NS];
            char out[4200];
            printf("  %-7s %-36s", shared ? "shared" : "blocks", cmds[c][0]);
            /* the runs of the four sizes interleaved, so that a slow spell of this machine
               falls on all of them */
            for (int i = 0; i < NS; i++)
                t[i] = 1e9;
            for (int r = 0; r < runs[0]; r++) {
                for (int i = 0; i < NS; i++) {
                    char *av[12];
                    int k = 0;
                    double x;
                    if (r >= runs[i])
                        continue;
                    av[k++] = argv[1];
                    av[k++] = (char *)cmds[c][0];
                    av[k++] = paths[i];
                    for (int j = 1; cmds[c][j]; j++)
                        av[k++] = (char *)cmds[c][j];
                    if (strcmp(cmds[c][0], "dot") == 0) {
                        snprintf(out, sizeof(out), "%s/scale.dot", argv[3]);
                        av[k++] = (char *)"-o";
                        av[k++] = out;
                    }
                    av[k] = NULL;
                    x = cpu_of(av);
                    if (x < 0) {
                        fprintf(stderr, "\nbench-scale: %s %s failed\n", cmds[c][0], paths[i]);
                        return 2;
                    }
                    if (x < t[i])
                        t[i] = x;
                }
            }
            for (int i = 0; i < NS; i++)
                printf(" %7.3f", t[i]);
            printf("  ratios");
            for (int i = 1; i < NS; i++) {
                /* below 20 ms a process is mostly start-up: too small to judge */
                double ratio = t[i - 1] > 0.02 ? t[i] / t[i - 1] : 0;
                printf(" %.2f", ratio);
                if (ratio > step_max) {
                    printf(" (!)");
                    bad = 1;
                }
            }
            {
                double whole = t[0] > 0.02 ? t[NS - 1] / t[0] : 0;
                printf("  x%.1f over the range%s", whole, whole > 8 * slack ? " (!)" : "");
                if (whole > 8 * slack)
                    bad = 1;
            }
            putchar('\n');
            fflush(stdout);
        }
    }
    printf("scaling: %s\n", bad ? "a command more than doubles its time (see (!))"
                                 : "every command stays within its doubling");
    return bad;
}
