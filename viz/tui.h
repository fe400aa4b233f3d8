/*
 * The `cgscope top` dashboard on a terminal (ncursesw), built the htop way: this file alone
 * sets curses up and tears it down (also on SIGINT/SIGTERM), one loop draws, waits for a key
 * under a timeout, dispatches it and acts on the handler's result flags. The data is a
 * lib/run/follow.h model polled every interval; nothing here parses.
 */
#ifndef CGS_VIZ_TUI_H
#define CGS_VIZ_TUI_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/run/follow.h"

struct cgs_tui_opts {
    struct cgs_follow *follow;
    int interval_ms;        /* poll period (default 100) */
    const char *title;      /* "cgscope top: trace/" */
    const char *log_path;   /* top -- CMD: where CMD's output goes (shown in the footer) */
    pid_t child;            /* top -- CMD: its pid (0 none); the dashboard stays after it exits */
    int child_status;       /* out: its wait status once it exited */
    bool child_done;        /* out */
};

/* Run until the user quits (q). 0, or -1 when the terminal cannot be used (message on stderr). */
int cgs_tui_run(struct cgs_tui_opts *o);

#endif
