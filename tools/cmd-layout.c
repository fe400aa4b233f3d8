/* cgscope layout: placeholder until its issue lands (owned by its helper). */
#include "tools/cmd.h"

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("'cgscope layout' is not implemented yet");
}

const struct cmd cmd_layout = {
    .name = "layout",
    .usage = "cgscope layout GRAPH",
    .summary = "(not implemented yet)",
    .help = "",
    .run = run,
};
