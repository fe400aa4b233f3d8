/* cgscope shapes: placeholder until its issue lands (owned by its helper). */
#include "tools/cmd.h"

static int run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error("'cgscope shapes' is not implemented yet");
}

const struct cmd cmd_shapes = {
    .name = "shapes",
    .usage = "cgscope shapes GRAPH",
    .summary = "(not implemented yet)",
    .help = "",
    .run = run,
};
