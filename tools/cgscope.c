/*
 * cgscope: look inside the computation graphs that ML compilers build.
 * main() and the command table; each command lives in tools/cmd-NAME.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/ops.h"
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
    fprintf(f, "\nGRAPH is a graph JSON (see docs/graph-json.md) or a torch.export .pt2 archive.\n"
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
    size_t best_d = 3;
    for (size_t i = 0; i < N_COMMANDS; i++) {
        size_t dist = cgs_edit_distance(name, commands[i]->name, best_d);
        if (dist < best_d) {
            best_d = dist;
            best = commands[i]->name;
        }
    }
    if (best)
        fprintf(stderr, "cgscope: '%s' is not a cgscope command; did you mean '%s'? (see "
                        "'cgscope help')\n", name, best);
    else
        fprintf(stderr, "cgscope: '%s' is not a cgscope command (see 'cgscope help')\n", name);
    return CGS_EXIT_BAD_INPUT;
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

    if (argc < 2) {
        print_usage(stderr);
        return CGS_EXIT_BAD_INPUT;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("cgscope %s\n", CGS_VERSION);
        return finish_stdout(CGS_EXIT_OK);
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
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
