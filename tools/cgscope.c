/*
 * cgscope: look inside the computation graphs that ML compilers build.
 * main() and the command table; each command lives in tools/cmd-NAME.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/arena.h"
#include "lib/ops/ops.h"
#include "lib/readers/load.h"
#include "lib/run/follow.h"
#include "tools/cmd.h"

#define CMD(n) extern const struct cmd cmd_##n;
#include "tools/cmd-list.h"
#undef CMD

static const struct cmd *const commands[] = {
#define CMD(n) &cmd_##n,
#include "tools/cmd-list.h"
#undef CMD
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *f)
{
    fprintf(f, "usage: cgscope <command> [options] FILE...\n"
               "       cgscope help [COMMAND]\n"
               "       cgscope --version\n\n"
               "Look inside the computation graphs that PyTorch compilers build: how they\n"
               "split, what shape and layout every tensor has, and why.\n\n"
               "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\nGRAPH is a graph JSON (see docs/graph-json.md), a torch.export .pt2 archive, or a\n"
               "TORCH_TRACE log or a ref to one of its graphs (cgscope graphs LOG lists them).\n"
               "Exit status: 0 success, 1 a check failed, 2 bad input or usage.\n"
               "'cgscope help COMMAND' or 'cgscope COMMAND --help' describe a command.\n");
}

static const struct cmd *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(commands[i]->name, name))
            return commands[i];
    return NULL;
}

/* "'splt' is not a cgscope command; did you mean 'split'?" (git's help.autocorrect, without
   running the guess). */
static int unknown_command(const char *name)
{
    const char *best = NULL;
    struct cgs_nearest nr;
    cgs_nearest_init(&nr, name, 2);
    for (size_t i = 0; i < N_COMMANDS; i++)
        cgs_nearest_offer(&nr, commands[i]->name);
    best = nr.best;
    if (best)
        fprintf(stderr, "cgscope: '%s' is not a cgscope command; did you mean '%s'? (see "
                        "'cgscope help')\n", name, best);
    else
        fprintf(stderr, "cgscope: '%s' is not a cgscope command (see 'cgscope help')\n", name);
    return CGS_EXIT_BAD_INPUT;
}

static int finish_stdout(int status);

/* Text inside a line: backslashes and hyphens escaped. */
static void roff_inline(FILE *f, const char *t)
{
    for (; t && *t; t++)
        fputs(*t == '\\' ? "\\e" : *t == '-' ? "\\-" : (char[2]){*t, 0}, f);
}

/* Text of its own lines: backslashes and hyphens escaped, a leading '.' or '\'' guarded (a
 * control character to troff). */
static void roff_text(FILE *f, const char *t)
{
    bool bol = true;
    for (; t && *t; t++) {
        if (bol && (*t == '.' || *t == '\''))
            fputs("\\&", f);
        if (*t == '\\')
            fputs("\\e", f);
        else if (*t == '-')
            fputs("\\-", f);
        else
            fputc(*t, f);
        bol = *t == '\n';
    }
    if (!bol)
        fputc('\n', f);
}


/* A man page from the same table as --help: cgscope(1), or cgscope-NAME(1) for a command. */
static void print_man(FILE *f, const struct cmd *c)
{
    fputs(".TH CGSCOPE", f);
    if (c) {
        fputs("\\-", f);
        for (const char *p = c->name; *p; p++)
            fputc(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, f);
    }
    fprintf(f, " 1 \"\" \"cgscope %s\" \"cgscope manual\"\n", CGS_VERSION);
    if (c) {
        fprintf(f, ".SH NAME\ncgscope\\-%s \\- ", c->name);
        roff_text(f, c->summary);
        fputs(".SH SYNOPSIS\n.nf\n", f);
        roff_text(f, c->usage);
        fputs(".fi\n.SH DESCRIPTION\n.nf\n", f);
        roff_text(f, c->help);
        if (c->more && c->more[0]) {
            fputc('\n', f);
            roff_text(f, c->more);
        }
        fputs(".fi\n.SH OPTIONS\n", f);
        for (const struct cli_opt *o = c->options; o && o->name; o++) {
            if (!o->help)
                continue; /* an alias: on the line of the entry before */
            fputs(".TP\n", f);
            if (o->short_name)
                fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
            for (const struct cli_opt *a = o; a == o || (a->name && !a->help); a++) {
                fprintf(f, "%s\\fB\\-\\-", a == o ? "" : ", ");
                for (const char *q = a->name; *q; q++)
                    fputs(*q == '-' ? "\\-" : (char[2]){*q, 0}, f);
                fputs("\\fR", f);
            }
            if (o->arg) {
                fputs(" \\fI", f);
                roff_inline(f, o->arg);
                fputs("\\fR", f);
            }
            fputs("\n.nf\n", f);
            roff_text(f, o->help);
            fputs(".fi\n", f);
        }
        fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nshow the help\n", f);
        fputs(".SH EXIT STATUS\n0 success, 1 a check failed (a CI gate), 2 bad input or "
              "usage.\n.SH SEE ALSO\n\\fBcgscope\\fR(1)\n", f);
        return;
    }
    fputs(".SH NAME\ncgscope \\- look inside the computation graphs that PyTorch compilers "
          "build\n.SH SYNOPSIS\n.B cgscope\n\\fICOMMAND\\fR [\\fIoptions\\fR] "
          "\\fIFILE\\fR...\n.SH COMMANDS\n",
          f);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        fprintf(f, ".TP\n\\fB%s\\fR\n", commands[i]->name);
        roff_text(f, commands[i]->summary);
    }
    fputs(".SH DESCRIPTION\nGRAPH is a graph JSON or a torch.export .pt2 archive; \"\\-\" reads "
          "standard input. Every command has \\fB\\-\\-help\\fR and "
          "\\fB\\-\\-json\\fR. Graphviz (dot), ncursesw (the live view of top) and libzip (.pt2 "
          "input) are opened when a command first needs them; where one is missing, that "
          "command fails with status 2, naming it and the package to install.\n.SH EXIT STATUS\n0 success, 1 a check failed (a CI "
          "gate), 2 bad input or usage.\n.SH ENVIRONMENT\n.TP\nCGSCOPE_OPS\n\\&':'\\-separated "
          "operator declaration files (docs/custom-ops.md)\n.TP\nNO_COLOR, CGSCOPE_COLOR\nno "
          "colour; always or never\n.TP\nCGSCOPE_THREADS\nthreads that read "
          "the logs ahead (at most three: the files after the first when several "
          "are read, one big compressed log alone), and the graphs `graphs' lists (1 to 64, the latter at most 8; 1 reads on "
          "one thread; default: by the cores)\n.TP\nCGSCOPE_MAX_UNPACK_RATIO\nhow many bytes a compressed log may unpack "
          "to per byte of it once past 256 MiB (default 1000: past it, a decompression bomb is "
          "refused; 0: no bound)\n.TP\nCGSCOPE_PROGRESS\nhow far a long read of a log has got: "
          "said on a terminal after a second (0: never); 1: always, a line every five seconds "
          "off a terminal\n.SH SEE ALSO\n",
          f);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "\\fBcgscope\\-%s\\fR(1)%s\n", commands[i]->name,
                i + 1 < N_COMMANDS ? "," : "");
}

/* The long options a command accepts ("--split-ops"), one per line, from its option table:
   what completion offers, and what the man page's OPTIONS and --help must describe. */
static void print_options(FILE *f, const struct cmd *c)
{
    for (const struct cli_opt *o = c->options; o && o->name; o++)
        fprintf(f, "--%s\n", o->name);
    fputs("--help\n", f);
}


/* cgscope help --man [COMMAND] | --commands | --options COMMAND | --values COMMAND OPTION: for make install's man
   pages and the shell completions. */
static int help_tool(int argc, char **argv)
{
    const struct cmd *c = argc > 3 ? find_command(argv[3]) : NULL;
    if (argc > 3 && !c)
        return unknown_command(argv[3]);
    if (!strcmp(argv[2], "--man")) {
        print_man(stdout, c);
    } else if (!strcmp(argv[2], "--commands")) {
        for (size_t i = 0; i < N_COMMANDS; i++)
            printf("%s\n", commands[i]->name);
    } else if (!strcmp(argv[2], "--options") && c) {
        print_options(stdout, c);
    } else if (!strcmp(argv[2], "--values") && c && argc > 4) {
        /* the values an option takes: what the completions offer (nothing: any value) */
        const char *name = argv[4] + (strncmp(argv[4], "--", 2) ? 0 : 2);
        for (const struct cli_opt *o = c->options; o && o->name; o++)
            if (!strcmp(o->name, name)) {
                cli_print_values(o, stdout);
                return finish_stdout(CGS_EXIT_OK);
            }
        fprintf(stderr, "cgscope: '%s' has no option '--%s'\n", c->name, name);
        return CGS_EXIT_BAD_INPUT;
    } else {
        fprintf(stderr, "usage: cgscope help --man [COMMAND] | --commands | --options COMMAND | "
                        "--values COMMAND OPTION\n");
        return CGS_EXIT_BAD_INPUT;
    }
    return finish_stdout(CGS_EXIT_OK);
}

/* ---- how far a long read has got ------------------------------------------------------------ */

struct read_progress {
    char path[512];
    double start, last; /* seconds */
    bool shown, tty, always;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fmt_bytes(char *out, size_t n, uint64_t b)
{
    if (b >= (uint64_t)1 << 30)
        snprintf(out, n, "%.2f GB", b / 1073741824.0);
    else
        snprintf(out, n, "%.1f MB", b / 1048576.0);
}

/* A file read for more than a second: "reading PATH: 1.2 GB of 3.4 GB (35%)" on the terminal's
 * stderr, rewritten in place four times a second and erased at the end; CGSCOPE_PROGRESS=1
 * says it in any case, a line every five seconds off a terminal, and the time the read took. */
static void on_read_progress(void *ctx, const char *path, uint64_t done, uint64_t size, bool end)
{
    struct read_progress *p = ctx;
    double t = now_s();
    char d[32], z[48];
    if (strncmp(p->path, path, sizeof(p->path) - 1)) {
        snprintf(p->path, sizeof(p->path), "%s", path);
        p->start = t;
        p->last = 0;
        p->shown = false;
    }
    if (end) {
        if (p->shown && p->tty) {
            fprintf(stderr, "\r%*s\r", 78, "");
        } else if (p->shown || p->always) {
            fmt_bytes(d, sizeof(d), done);
            fprintf(stderr, "cgscope: read %s (%s%s) in %.1f s\n", path, d,
                    size ? "" : " unpacked", t - p->start);
        }
        p->path[0] = '\0';
        return;
    }
    if ((!p->always && t - p->start < 1.0) || t - p->last < (p->tty ? 0.25 : 5.0))
        return;
    p->last = t;
    p->shown = true;
    fmt_bytes(d, sizeof(d), done);
    fmt_bytes(z, sizeof(z), size);
    if (size)
        snprintf(z + strlen(z), sizeof(z) - strlen(z), " (%.0f%%)", done * 100.0 / size);
    fprintf(stderr, "%scgscope: reading %.*s: %s%s%s%s", p->tty ? "\r" : "", p->tty ? 40 : 400,
            path, d, size ? " of " : " unpacked", size ? z : "", p->tty ? "   " : "\n");
}

/* --json anywhere before "--": errors also as a JSON object. */
static bool wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--json"))
            return true;
    }
    return false;
}

/* Flush and check stdout, as git's run_builtin does. */
static int finish_stdout(int status)
{
    if (fflush(stdout) || ferror(stdout)) {
        if (errno != EPIPE)
            fprintf(stderr, "cgscope: error: write failure on standard output: %s\n",
                    strerror(errno));
        return status ? status : CGS_EXIT_BAD_INPUT;
    }
    if (fclose(stdout)) {
        fprintf(stderr, "cgscope: error: close failed on standard output: %s\n", strerror(errno));
        return status ? status : CGS_EXIT_BAD_INPUT;
    }
    return status;
}

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    const struct cmd *c;
    int status;

    cgs_set_oom_handler(cli_out_of_memory);
    cli_catch_signals();
    cgs_json_init();
    {
        /* CGSCOPE_THREADS=N: threads that read logs and graphs (1: one; default: by cores) */
        const char *t = getenv("CGSCOPE_THREADS");
        unsigned long n;
        if (t && *t) {
            if (!cli_parse_uint(t, &n) || n < 1 || n > 64)
                return cli_error("CGSCOPE_THREADS='%s': expected a number of threads from 1 to "
                                 "64 (1 reads graphs on one thread)", t);
            cgs_load_set_threads((int)n);
        }
    }
    {
        /* CGSCOPE_MAX_UNPACK_RATIO=N: how far a compressed log may unpack per byte (0: any) */
        const char *t = getenv("CGSCOPE_MAX_UNPACK_RATIO");
        unsigned long n;
        if (t && *t) {
            if (!cli_parse_uint(t, &n))
                return cli_error("CGSCOPE_MAX_UNPACK_RATIO='%s': expected a whole number (the "
                                 "bytes a compressed log may unpack to per byte; 0: no bound)",
                                 t);
            cgs_follow_set_unpack_ratio((double)n);
        }
    }
    {
        /* how far a long read has got: on a terminal, or always with CGSCOPE_PROGRESS=1 */
        static struct read_progress progress;
        const char *t = getenv("CGSCOPE_PROGRESS");
        progress.tty = isatty(2);
        progress.always = t && !strcmp(t, "1");
        if ((progress.tty && !(t && !strcmp(t, "0"))) || progress.always)
            cgs_follow_set_progress(on_read_progress, &progress);
    }
    if (argc < 2) {
        print_usage(stderr);
        return CGS_EXIT_BAD_INPUT;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("cgscope %s\n", CGS_VERSION);
        return finish_stdout(CGS_EXIT_OK);
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        if (argc > 2 && strcmp(argv[1], "help") == 0 && argv[2][0] == '-')
            return help_tool(argc, argv);
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            c = find_command(argv[2]);
            if (!c)
                return unknown_command(argv[2]);
            cli_print_help(c, stdout);
        } else {
            print_usage(stdout);
        }
        return finish_stdout(CGS_EXIT_OK);
    }
    c = find_command(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    if (wants_help(argc - 1, argv + 1)) {
        cli_print_help(c, stdout);
        return finish_stdout(CGS_EXIT_OK);
    }
    cli_json_mode = wants_json(argc - 1, argv + 1);
    status = finish_stdout(c->run(argc - 1, argv + 1));
    cli_flush_json_error(status);
    return status;
}
