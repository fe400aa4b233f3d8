/* cgscope profile: run a command under the CUPTI injection library, then summarise. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/readers/file.h"
#include "lib/run/prof.h"
#include "tools/cmd.h"

extern const struct cmd cmd_html;
#include "tools/prof-out.h"

static int run(int argc, char **argv);

/* the options run() accepts: --help, the man page, completion and "did you mean" list them */
static const struct cli_opt options[] = {
    CLI_OPT_SHORT('o', "output", 'o', "DIR",
     "where the traces go (default: cgscope-profile); traces of an\n"
     "earlier run there are removed first"),
    CLI_OPT("nvtx-prefix", 'p', "P", "the range-name prefix that marks a piece (default \"cgscope:\")"),
    CLI_OPT("json", 'j', NULL, "print the report as JSON on stdout when CMD ends"),
    CLI_OPT("html", 'H', NULL,
            "also write DIR/report.html (cgscope html): the profile with CMD's graphs\n"
            "and compiles (TORCH_TRACE is pointed at DIR/torch_trace unless set)"),
    CLI_OPT_SHORT('q', "quiet", 'q', NULL, "no summary (DIR/report.json is still written)"),
    CLI_OPT_END,
};

const struct cmd cmd_profile = {
    .name = "profile",
    .usage = "cgscope profile [-o|--output DIR] [--nvtx-prefix P] [--json] [--html] [--quiet]\n"
             "                       -- CMD [ARGS...]",
    .summary = "run CMD under CUPTI and report the GPU time of each piece",
    .help =
        "Runs CMD unchanged with cgscope's CUPTI library injected (CUDA_INJECTION64_PATH and\n"
        "NVTX_INJECTION64_PATH), which records every kernel, memcpy and memset with the NVTX\n"
        "range open when it was launched, into one trace per process in DIR. When CMD ends,\n"
        "the per-piece summary is printed on stderr and written to DIR/report.json (what\n"
        "`cgscope dot --profile` reads); `cgscope report DIR` shows it all. CMD's exit status\n"
        "is cgscope's. Pieces are the ranges \"cgscope:0/0/submod_N\" (the Dynamo graph's\n"
        "compile id, the piece) the Python bridge's piecewise runner opens\n"
        "(tools/python/cgscope_torch.py, piecewise_backend).\n\n"
        "CUPTI takes one client per process: torch.profiler, Nsight Systems and Nsight\n"
        "Compute cannot run alongside (the trace's log says which tool held it).\n\n",
    .more =
        "environment: CGSCOPE_CUPTI_LIB the injection library to use (default: the one\n"
        "built beside this cgscope, build/profiler/libcgscope-cupti.so, or installed under\n"
        "lib/cgscope/).\n\n"
        "on a machine with CUDA (the profile of samples/profile was made so):\n"
        "  cgscope profile -- python3 run.py --steps 20\n"
        "  cgscope profile -o prof -- torchrun --nproc-per-node 2 train.py\n"
        "  cgscope report prof --kernels 30\n",
    .run = run,
    .options = options,
    .stop_at_operand = true,
};

#define LIB_NAME "libcgscope-cupti.so"

static int find_lib(char *out, size_t n)
{
    const char *env = getenv("CGSCOPE_CUPTI_LIB");
    char exe[PATH_MAX];
    ssize_t len;
    static const char *const rel[] = {"build/profiler/", "profiler/", "../profiler/",
                                      "../lib/cgscope/", "../build/profiler/"};

    if (env && *env) {
        if (!realpath(env, out) || access(out, R_OK))
            return cli_error("CGSCOPE_CUPTI_LIB=%s: cannot read it: %s", env, strerror(errno));
        return 0;
    }
    len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len > 0) {
        char *slash;
        exe[len] = 0;
        if ((slash = strrchr(exe, '/')))
            *slash = 0;
        for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
            char p[PATH_MAX + 64];
            snprintf(p, sizeof(p), "%s/%s" LIB_NAME, exe, rel[i]);
            if (access(p, R_OK) == 0 && realpath(p, out) && strlen(out) < n)
                return 0;
        }
    }
    return cli_error("the CUPTI library (" LIB_NAME ") was not built: it needs CUDA's headers "
                     "(cupti.h); build it with 'make profiler CUDA_HOME=/usr/local/cuda' (or "
                     "the CUDA that has include/cupti.h), or set CGSCOPE_CUPTI_LIB");
}

/* The files a profile leaves in its folder: cgscope-<pid>... traces and logs, report.json. */
static bool ours(const char *name)
{
    if (strcmp(name, "report.json") == 0)
        return true;
    if (strncmp(name, "cgscope-", 8) || !strchr("0123456789", name[8]) || !name[8])
        return false;
    return cgs_path_has_ext(name, ".cgstrace") || cgs_path_has_ext(name, ".cgstrace.part") ||
           cgs_path_has_ext(name, ".log");
}

/* Make DIR (and parents) and remove the files an earlier profile left in it. */
static int prepare_dir(const char *dir, unsigned *removed)
{
    char tmp[PATH_MAX];
    DIR *dp;
    struct dirent *e;

    *removed = 0;
    if (strlen(dir) >= sizeof(tmp))
        return cli_file_error(dir, "path too long");
    strcpy(tmp, dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0777) && errno != EEXIST)
            return cli_error("cannot make '%s': %s", tmp, strerror(errno));
        *p = '/';
    }
    if (mkdir(tmp, 0777) && errno != EEXIST)
        return cli_error("cannot make '%s': %s", tmp, strerror(errno));
    if (!(dp = opendir(dir)))
        return cli_file_error(dir, "not a folder cgscope can write (%s)", strerror(errno));
    while ((e = readdir(dp))) {
        char p[PATH_MAX + 256];
        if (!ours(e->d_name))
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (unlink(p) == 0 && strcmp(e->d_name, "report.json") && !strstr(e->d_name, ".log"))
            (*removed)++;
    }
    closedir(dp);
    if (access(dir, W_OK))
        return cli_file_error(dir, "cannot write there: %s", strerror(errno));
    return 0;
}

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The library's own log lines (what went wrong when there is no trace). */
static void show_logs(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        char p[PATH_MAX + 256], line[1024];
        FILE *f;
        if (strncmp(e->d_name, "cgscope-", 8) || !cgs_path_has_ext(e->d_name, ".log"))
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (!(f = fopen(p, "r")))
            continue;
        while (fgets(line, sizeof(line), f))
            fprintf(stderr, "  %s", line);
        fclose(f);
    }
    if (dp)
        closedir(dp);
}

/* --html: DIR/report.html of the run (its traces when there are, the TORCH_TRACE log of CMD). */
static void write_html(const char *dir, const char *tracedir, bool traces, bool quiet)
{
    char page[PATH_MAX + 16];
    struct stat tst;
    char *hv[8];
    int hc = 0;
    snprintf(page, sizeof(page), "%s/report.html", dir);
    hv[hc++] = (char *)"html";
    if (traces)
        hv[hc++] = (char *)dir;
    if (!stat(tracedir, &tst) && S_ISDIR(tst.st_mode))
        hv[hc++] = (char *)tracedir;
    if (hc == 1) {
        cli_warn("--html: no trace and no TORCH_TRACE log in %s: no page", dir);
        return;
    }
    hv[hc++] = (char *)"-o";
    hv[hc++] = page;
    hv[hc] = NULL;
    if (cmd_html.run(hc, hv) == CGS_EXIT_OK && !quiet)
        fprintf(stderr, "open %s\n", page);
}

struct profile_args {
    const char *dir, *prefix;
    bool json, quiet, html;
    char lib[PATH_MAX], absdir[PATH_MAX], tracedir[PATH_MAX + 16];
};

static int parse_args(int argc, char **argv, struct profile_args *a)
{
    unsigned removed;
    const char *cur;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = cli_getopt(&cmd_profile, argc, argv)) != -1) {
        switch (c) {
        case 'o': a->dir = optarg; break;
        case 'p': a->prefix = optarg; break;
        case 'j': a->json = true; break;
        case 'q': a->quiet = true; break;
        case 'H': a->html = true; break;
        default: return CGS_EXIT_BAD_INPUT; /* cli_getopt said why */
        }
    }
    if (optind == argc)
        return cli_usage_error(&cmd_profile, "missing the command to run: cgscope profile -- "
                                             "CMD [ARGS...]");
    if (!*a->dir)
        return cli_usage_error(&cmd_profile, "-o needs a folder name");
    if (find_lib(a->lib, sizeof(a->lib)) || prepare_dir(a->dir, &removed))
        return CGS_EXIT_BAD_INPUT;
    if (!realpath(a->dir, a->absdir))
        return cli_file_error(a->dir, "%s", strerror(errno));
    if (removed && !a->quiet)
        fprintf(stderr, "cgscope profile: removed %u trace%s of an earlier run from %s\n",
                removed, PLURAL(removed), a->dir);
    cur = getenv("CUDA_INJECTION64_PATH");
    if (cur && *cur && strcmp(cur, a->lib))
        cli_warn("CUDA_INJECTION64_PATH was %s; cgscope's library replaces it for CMD", cur);
    if (a->html)
        snprintf(a->tracedir, sizeof(a->tracedir), "%s/torch_trace", a->absdir);
    return 0;
}

/* Run CMD with the profiler injected and wait for it (the terminal's ^C reaches CMD itself;
 * cgscope waits, then summarises): its wait status into *st, or -1 when it did not start. */
static int run_injected(char **cmd, const struct profile_args *a, int *st, double *secs)
{
    struct sigaction sa, old_int, old_quit, old_term, old_hup;
    double t0 = mono();
    pid_t pid = fork();
    if (pid < 0)
        return cli_error("cannot start '%s': %s", cmd[0], strerror(errno)), -1;
    if (pid == 0) {
        setenv("CUDA_INJECTION64_PATH", a->lib, 1);
        setenv("NVTX_INJECTION64_PATH", a->lib, 1);
        setenv("CGSCOPE_TRACE_DIR", a->absdir, 1);
        if (a->html && !getenv("TORCH_TRACE"))
            setenv("TORCH_TRACE", a->tracedir, 1);
        if (a->prefix)
            setenv("CGSCOPE_NVTX_PREFIX", a->prefix, 1);
        else
            unsetenv("CGSCOPE_NVTX_PREFIX");
        execvp(cmd[0], cmd);
        fprintf(stderr, "cgscope profile: cannot run '%s': %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    child_pid = pid;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGQUIT, &sa, &old_quit);
    sa.sa_handler = forward;
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    while (waitpid(pid, st, 0) < 0 && errno == EINTR)
        ;
    child_pid = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    *secs = mono() - t0;
    return 0;
}

static bool any_trace(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    bool any = false;
    while (dp && (e = readdir(dp)))
        any |= strstr(e->d_name, ".cgstrace") != NULL;
    if (dp)
        closedir(dp);
    return any;
}

/* The traces CMD left: report.json in dir, the summary on stderr (--json: the report on
 * stdout). False when they could not be read (said). */
static bool summarise(const struct profile_args *a)
{
    const char *paths[1] = {a->dir};
    struct cgs_prof_opts po = {a->prefix, CGS_PROF_BY_PIECE, false};
    struct cli_prof_out out = {.kernels = 15, .brief = true};
    struct cli_prof_set set;
    struct cgs_prof_report rep;
    struct cgs_diag d = CGS_DIAG_INIT;
    char rp[PATH_MAX + 16], *text;

    if (cli_prof_load(paths, 1, &set) ||
        (cgs_prof_report_build(set.traces, (uint32_t)set.n, &po, &rep, &d) < 0 &&
         cli_report_diag(&d))) {
        cli_prof_release(&set);
        return false;
    }
    for (size_t i = 0; i < set.n; i++)
        if (set.traces[i].error) {
            show_logs(a->dir); /* every process's log, once */
            break;
        }
    text = cli_prof_text(&set, &rep, &out);
    snprintf(rp, sizeof(rp), "%s/report.json", a->dir);
    if (cli_write_file(rp, text, strlen(text)) != 0)
        cli_warn("could not write %s", rp);
    if (a->json) {
        fputs(text, stdout);
        fputc('\n', stdout);
    }
    free(text);
    if (!a->quiet) {
        cli_prof_warn(&set, &rep, NULL, NULL);
        fprintf(stderr, "%zu process%s traced into %s\n", set.n, set.n == 1 ? "" : "es", a->dir);
        cli_prof_print(stderr, &set, &rep, &out);
        fprintf(stderr, "\nmore: cgscope report %s   |   pictures: cgscope dot GRAPH "
                        "--split-ops OPS --profile %s\n", a->dir, rp);
    }
    cgs_prof_report_release(&rep);
    cli_prof_release(&set);
    return true;
}

static int run(int argc, char **argv)
{
    struct profile_args *a = cgs_xcalloc(1, sizeof(*a)); /* paths: not on the stack */
    int st = 0, status, rc;
    double secs = 0;

    a->dir = "cgscope-profile";
    if ((rc = parse_args(argc, argv, a)) || run_injected(argv + optind, a, &st, &secs)) {
        free(a);
        return rc ? rc : CGS_EXIT_BAD_INPUT;
    }
    status = cli_exit_status(st);
    if (!a->quiet && WIFSIGNALED(st))
        fprintf(stderr, "\ncgscope profile: %s ended on signal %d after %.1f s\n", argv[optind],
                WTERMSIG(st), secs);
    else if (!a->quiet)
        fprintf(stderr, "\ncgscope profile: %s exited with status %d after %.1f s\n",
                argv[optind], status, secs);
    if (!any_trace(a->dir)) {
        cli_warn("no trace was written in %s: CMD did not initialise CUDA, or the profiler "
                 "could not start", a->dir);
        show_logs(a->dir);
        if (a->html)
            write_html(a->dir, a->tracedir, false, a->quiet);
    } else if (summarise(a) && a->html) {
        write_html(a->dir, a->tracedir, true, a->quiet);
    }
    free(a);
    return status;
}
