/* cgscope split: placeholder until its issue lands (owned by its helper). */
#include "tools/cmd.h"

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("'cgscope split' is not implemented yet");
}

const struct cmd cmd_split = {
    .name = "split",
    .usage = "cgscope split GRAPH",
    .summary = "(not implemented yet)",
    .help = "",
    .run = run,
};
