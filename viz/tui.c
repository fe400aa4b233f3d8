/* The terminal dashboard (viz/tui.h): the one place curses is set up. */
#include "viz/tui.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "lib/run/dash.h"
#include "lib/run/findings.h"
#include "lib/readers/file.h"
#include "viz/curses-api.h"

/* ---- CRT: curses setup, colours, teardown ------------------------------------------------ */

enum color_element { C_NORMAL, C_HEADER, C_OK, C_WARN, C_BAD, C_DIM, C_SELECT, C_TITLE, C_COUNT };

static const struct {
    short fg, bg;
    attr_t attr;
} color_scheme[C_COUNT] = {
    [C_NORMAL] = {-1, -1, A_NORMAL},         [C_HEADER] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL},
    [C_OK] = {COLOR_GREEN, -1, A_NORMAL},    [C_WARN] = {COLOR_YELLOW, -1, A_NORMAL},
    [C_BAD] = {COLOR_RED, -1, A_BOLD},       [C_DIM] = {COLOR_BLUE, -1, A_NORMAL},
    [C_SELECT] = {COLOR_BLACK, COLOR_YELLOW, A_NORMAL}, [C_TITLE] = {-1, -1, A_BOLD},
};

static struct {
    SCREEN *screen;
    bool colors, utf8, active;
    volatile sig_atomic_t quit;
} crt;

static attr_t attr_of(enum color_element e)
{
    if (!crt.colors)
        return e == C_HEADER || e == C_SELECT ? A_REVERSE : e == C_BAD || e == C_TITLE ? A_BOLD
                                                                                      : A_NORMAL;
    return COLOR_PAIR(e) | color_scheme[e].attr;
}

static void crt_done(void)
{
    if (crt.active) {
        endwin();
        delscreen(crt.screen);
        crt.active = false;
    }
}

static void on_signal(int sig)
{
    (void)sig;
    crt.quit = 1; /* the loop ends and tears curses down */
}

static int crt_init(void)
{
    struct sigaction sa;
    struct cgs_diag d = CGS_DIAG_INIT;
    if (cgs_curses_load(&d)) {
        fprintf(stderr, "cgscope: error: %s; top --once prints the table as text\n", d.msg);
        return -1;
    }
    setlocale(LC_ALL, "");
    crt.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    crt.screen = newterm(NULL, stdout, stdin);
    if (!crt.screen) {
        fprintf(stderr, "cgscope: error: cannot use this terminal (TERM=%s); top --once prints "
                        "the table as text\n", getenv("TERM") ? getenv("TERM") : "");
        return -1;
    }
    crt.active = true;
    atexit(crt_done);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    noecho();
    cbreak();
    nonl();
    intrflush(stdscr, false);
    keypad(stdscr, true);
    curs_set(0);
    if (has_colors()) {
        start_color();
        use_default_colors();
        crt.colors = true;
        for (int e = 1; e < C_COUNT; e++)
            init_pair((short)e, color_scheme[e].fg, color_scheme[e].bg);
    }
    return 0;
}

/* ---- the screen's state ----------------------------------------------------------------- */

enum handler_result { HANDLED = 0x01, IGNORED = 0x02, BREAK_LOOP = 0x04, REDRAW = 0x08 };
enum view { VIEW_TABLE, VIEW_DETAIL, VIEW_HELP, VIEW_FILTER, VIEW_FINDINGS };

struct screen {
    struct cgs_tui_opts *o;
    enum view view;
    enum cgs_dash_col sort;
    char filter[64];
    size_t filter_len;
    bool paused;
    uint32_t selected, top;
    const struct cgs_dash_row **rows;
    uint32_t n_rows;
    int hscroll; /* Left/Right: the first character of the frame / reason column shown */
    double now, rate, rate_t;
    uint64_t rate_events;
    /* the findings of what was read, made again only when more was read (a reset of the
       sources, a truncated file read anew, counts as more) */
    struct cgs_findings findings;
    uint64_t findings_events;
    bool findings_made;
};

/* The findings of the dashboard's model, as of the last record read. */
static const struct cgs_findings *screen_findings(struct screen *s)
{
    const struct cgs_dash *d = s->o->follow->dash;
    if (!s->findings_made || s->findings_events != d->events + d->bad_lines) {
        struct cgs_findings_input in = {d, NULL, 0, NULL};
        if (s->findings_made)
            cgs_findings_release(&s->findings);
        cgs_findings_build(&in, &s->findings);
        s->findings_made = true;
        s->findings_events = d->events + d->bad_lines;
    }
    return &s->findings;
}

/* every column of lib/run/dash.h's table, in its order, at its width */
#define N_SHOWN ((size_t)CGS_DASH_COL_COUNT)
#define shown_cols(k) ((enum cgs_dash_col)(k))
#define col_width(c) (cgs_dash_columns[c].width)

/* the source column only when rows come from more than one file */
static bool col_shown(const struct screen *s, enum cgs_dash_col c)
{
    return !(cgs_dash_columns[c].flags & CGS_DASH_MULTI) || s->o->follow->dash->n_sources > 1;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void refresh_view(struct screen *s)
{
    free(s->rows);
    s->n_rows = cgs_dash_view(s->o->follow->dash, s->sort, s->filter, s->now, &s->rows);
    if (s->selected >= s->n_rows)
        s->selected = s->n_rows ? s->n_rows - 1 : 0;
}

/* A hit-rate bar of width w: UTF-8 blocks where the terminal has them, '#' and '.' else. */
static void draw_bar(double rate, int w)
{
    int fill = rate < 0 ? 0 : (int)(rate * w + 0.5);
    attr_t a = attr_of(rate < 0 ? C_DIM : rate >= 0.9 ? C_OK : rate >= 0.5 ? C_WARN : C_BAD);
    attron(a);
    for (int i = 0; i < w; i++) {
        if (crt.utf8)
            addstr(i < fill ? "\xe2\x96\x88" : "\xe2\x96\x91");
        else
            addch(i < fill ? '#' : '.');
    }
    attroff(a);
}

static void draw_header(struct screen *s)
{
    const struct cgs_dash *d = s->o->follow->dash;
    double hr = cgs_dash_hit_rate(d);
    int w = COLS;
    char line[512];

    move(0, 0);
    attron(attr_of(C_TITLE));
    printw("%.*s", w, s->o->title ? s->o->title : "cgscope top");
    attroff(attr_of(C_TITLE));
    if (s->paused)
        printw("  [paused]");
    if (s->o->child && s->o->child_done) {
        attron(attr_of(C_WARN));
        if (WIFEXITED(s->o->child_status))
            printw("  command exited with %d: q quits", WEXITSTATUS(s->o->child_status));
        else
            printw("  command ended by signal %d: q quits", WTERMSIG(s->o->child_status));
        attroff(attr_of(C_WARN));
    }
    clrtoeol();
    snprintf(line, sizeof(line),
             "events %llu (%.1f/s)  compiles %llu  hit rate %s  recompiles %llu  graph breaks "
             "%llu  piece runs %llu  bad lines %llu",
             (unsigned long long)d->events, s->rate, (unsigned long long)d->compiles,
             hr < 0 ? "-" : "", (unsigned long long)d->recompiles,
             (unsigned long long)d->graph_breaks, (unsigned long long)d->piece_runs,
             (unsigned long long)d->bad_lines);
    if (hr >= 0) {
        char pct[16];
        snprintf(pct, sizeof(pct), "%.1f%%", hr * 100);
        char *p = strstr(line, "hit rate ");
        if (p) {
            char rest[512];
            snprintf(rest, sizeof(rest), "%s", p + 9);
            snprintf(p + 9, sizeof(line) - (size_t)(p + 9 - line), "%s%s", pct, rest);
        }
    }
    mvprintw(1, 0, "%.*s", w, line);
    clrtoeol();
    move(2, 0);
    for (uint32_t i = 0; i < d->n_caches && i < 6; i++)
        printw("%s%s %llu hit / %llu miss / %llu bypass", i ? "   " : "caches: ",
               d->caches[i].name, (unsigned long long)d->caches[i].hit,
               (unsigned long long)d->caches[i].miss, (unsigned long long)d->caches[i].bypass);
    if (!d->n_caches)
        printw("caches: no lookup yet");
    clrtoeol();
    move(3, 0);
    if (s->o->follow->status[0]) {
        attron(attr_of(C_WARN));
        printw("%.*s", w, s->o->follow->status);
        attroff(attr_of(C_WARN));
    } else if (d->bad_lines) {
        attron(attr_of(C_BAD));
        printw("first bad line: %.*s", w - 16, d->first_bad);
        attroff(attr_of(C_BAD));
    } else if (s->filter_len) {
        printw("filter: %s", s->filter);
    } else {
        /* the verdicts of what was read so far (the findings model, as check prints it) */
        const struct cgs_findings *fs = screen_findings(s);
        if (fs->n) {
            int a = attr_of(fs->v[0].severity == CGS_SEV_ERROR ? C_BAD : C_WARN);
            attron(a);
            printw("findings %u (f lists them): %s: %.*s", fs->n,
                   cgs_severity_names[fs->v[0].severity], w > 40 ? w - 40 : 0, fs->v[0].message);
            attroff(a);
        } else if (d->events) {
            printw("findings: none so far (no failed compile, recompile or graph break)");
        }
    }
    clrtoeol();
}

/* The findings view: every finding with its hint (f, or q, to go back). */
static void draw_findings(struct screen *s)
{
    const struct cgs_findings *fsp = screen_findings(s), fs = *fsp;
    int y = 5;
    for (int k = 4; k < LINES - 1; k++) {
        move(k, 0);
        clrtoeol();
    }
    mvprintw(4, 0, "findings (f, q or Esc: back; cgscope check prints them with the graphs')");
    if (!fs.n)
        mvprintw(y, 2, "none so far");
    for (uint32_t i = 0; i < fs.n && y < LINES - 2; i++) {
        const struct cgs_finding *f = &fs.v[i];
        attron(attr_of(f->severity == CGS_SEV_ERROR ? C_BAD : f->severity == CGS_SEV_WARNING
                                                                ? C_WARN
                                                                : C_HEADER));
        mvprintw(y, 2, "%s", cgs_severity_names[f->severity]);
        attroff(attr_of(f->severity == CGS_SEV_ERROR ? C_BAD : f->severity == CGS_SEV_WARNING
                                                                 ? C_WARN
                                                                 : C_HEADER));
        printw(" %s: %.*s", cgs_finding_kind_names[f->kind], COLS > 30 ? COLS - 30 : 0,
               f->message);
        y++;
        for (const char *p = f->hint; p && *p && y < LINES - 2;) {
            size_t k = strcspn(p, "\n");
            mvprintw(y++, 6, "hint: %.*s", (int)(k < (size_t)COLS - 13 ? k : (size_t)COLS - 13),
                     p);
            p += k;
            p += *p == '\n';
        }
    }
}

/* When the command failed: the last lines of its output, under the rows (the why). */
static void draw_child_tail(struct screen *s)
{
    char tail[8][256];
    int n, y;
    if (!s->o->child || !s->o->child_done || !s->o->log_path ||
        (WIFEXITED(s->o->child_status) && WEXITSTATUS(s->o->child_status) == 0))
        return;
    n = cgs_file_tail(s->o->log_path, tail, 8);
    y = LINES - 2 - n; /* at the bottom, over the last rows, below the header */
    if (y < 6)
        y = 6;
    attron(attr_of(C_WARN));
    mvprintw(y - 1, 0, "the command's last output (%s):", s->o->log_path);
    attroff(attr_of(C_WARN));
    for (int i = 0; i < n && y < LINES - 1; i++, y++) {
        move(y, 0);
        clrtoeol();
        mvprintw(y, 2, "%.*s", COLS - 3, tail[i]);
    }
}

static void draw_table(struct screen *s)
{
    int y = 5, height = LINES - 7;
    char cell[512];

    move(4, 0);
    attron(attr_of(C_HEADER));
    for (size_t k = 0; k < N_SHOWN; k++) {
        enum cgs_dash_col c = shown_cols(k);
        char name[40];
        if (!col_shown(s, c))
            continue;
        snprintf(name, sizeof(name), "%s%s", cgs_dash_col_names[c], c == s->sort ? "*" : "");
        printw("%-*s ", col_width(c) ? col_width(c) : 1, name);
    }
    for (int x = getcurx(stdscr); x < COLS; x++)
        addch(' ');
    attroff(attr_of(C_HEADER));
    if (s->selected < s->top)
        s->top = s->selected;
    if (height > 0 && s->selected >= s->top + (uint32_t)height)
        s->top = s->selected - (uint32_t)height + 1;
    for (uint32_t i = s->top; i < s->n_rows && y < LINES - 2; i++, y++) {
        const struct cgs_dash_row *r = s->rows[i];
        bool sel = i == s->selected;
        move(y, 0);
        if (sel)
            attron(attr_of(C_SELECT));
        for (size_t k = 0; k < N_SHOWN; k++) {
            enum cgs_dash_col c = shown_cols(k);
            if (!col_shown(s, c))
                continue;
            if (c == CGS_DASH_COL_RATE) {
                double rate = cgs_dash_row_rate(r);
                cgs_dash_row_cell(s->o->follow->dash, r, c, s->now, cell, sizeof(cell));
                printw("%4s ", cell);
                if (sel)
                    attroff(attr_of(C_SELECT));
                draw_bar(rate, col_width(c) - 5);
                if (sel)
                    attron(attr_of(C_SELECT));
                addch(' ');
                continue;
            }
            cgs_dash_row_cell(s->o->follow->dash, r, c, s->now, cell, sizeof(cell));
            if (c == CGS_DASH_COL_WHAT) {
                int room = COLS - getcurx(stdscr), len = (int)strlen(cell);
                int from = s->hscroll < len ? s->hscroll : len;
                if (room > 0)
                    printw("%.*s", room, cell + from);
            } else {
                printw("%-*.*s ", col_width(c), col_width(c), cell);
            }
        }
        clrtoeol();
        if (sel)
            attroff(attr_of(C_SELECT));
    }
    for (; y < LINES - 1; y++) {
        move(y, 0);
        clrtoeol();
    }
    if (!s->n_rows)
        mvprintw(6, 2, "%s", s->filter_len ? "no row matches the filter" : "no compile seen yet");
    draw_child_tail(s);
}

static void draw_detail(struct screen *s)
{
    const struct cgs_dash *d = s->o->follow->dash;
    const struct cgs_dash_row *r = s->selected < s->n_rows ? s->rows[s->selected] : NULL;
    char cell[512];
    int y = 5;

    for (int k = 4; k < LINES - 1; k++) {
        move(k, 0);
        clrtoeol();
    }
    if (!r) {
        mvprintw(5, 2, "no row selected");
        return;
    }
    attron(attr_of(C_TITLE));
    mvprintw(4, 0, "row detail (q, Esc or Enter: back)");
    attroff(attr_of(C_TITLE));
    for (int c = 0; c < CGS_DASH_COL_WHAT && y < LINES - 2; c++, y++) {
        if (!col_shown(s, (enum cgs_dash_col)c)) {
            y--;
            continue;
        }
        cgs_dash_row_cell(s->o->follow->dash, r, (enum cgs_dash_col)c, s->now, cell, sizeof(cell));
        mvprintw(y, 2, "%-12s %s", cgs_dash_col_names[c], cell);
    }
    if (r->frame && y < LINES - 2)
        mvprintw(y++, 2, "%-12s %s", "frame", r->frame);
    if (r->trace && r->metrics && y < LINES - 2) { /* the compile time per phase, as logged */
        mvprintw(y++, 2, "%-12s", "phases");
        for (int k = 0; k < CGS_DASH_PHASE_COUNT; k++)
            if (r->phase_ms[k] >= 0)
                printw(" %s %.1f ms", cgs_dash_phase_names[k], r->phase_ms[k]);
            else
                printw(" %s -", cgs_dash_phase_names[k]);
    }
    if (r->fail_type && y < LINES - 2) { /* the reason's first line */
        const char *fr = r->fail_reason ? r->fail_reason : "";
        int k = (int)strcspn(fr, "\n"), room = COLS > 40 ? COLS - 40 : 0;
        mvprintw(y++, 2, "%-12s %s: %.*s", r->limit_hit ? "refused" : "failed", r->fail_type,
                 k < room ? k : room, fr);
    }
    if (r->indexed && y < LINES - 2)
        mvprintw(y++, 2, "%-12s yes (restart_analysis_count %lld)", "cache index",
                 (long long)r->restart_analysis_count);
    if (r->reason) {
        const char *p = r->reason;
        if (r->recompiles && r->trace)
            mvprintw(y++, 2, "recompiled: every entry Dynamo already had for this frame failed a "
                     "guard; each line names one (compile id) and the guard it failed:");
        else
            mvprintw(y++, 2, "reason:");
        while (*p && y < LINES - 2) {
            size_t k = strcspn(p, "\n");
            mvprintw(y++, 4, "%.*s", (int)(k < (size_t)COLS - 5 ? k : (size_t)COLS - 5), p);
            p += k + (p[k] == '\n');
        }
    }
    for (uint32_t i = 0; i < d->n_breaks && y < LINES - 2; i++)
        if (r->compile_id && d->breaks[i].compile_ids &&
            cgs_dash_id_in_list(d->breaks[i].compile_ids, r->compile_id))
            mvprintw(y++, 2, "graph break: %s (%s:%lld)", d->breaks[i].reason,
                     d->breaks[i].file ? d->breaks[i].file : "?", (long long)d->breaks[i].line);
}

static void draw_help(void)
{
    static const char *const lines[] = {
        "keys",
        "  Up/Down, PgUp/PgDn  select a row",
        "  Enter, d            the selected row in detail",
        "  s / S               sort by the next / previous column (* marks it)",
        "  Left/Right          scroll the frame / reason column",
        "  /                   filter rows by text in any cell (Enter ends, empty clears)",
        "  p, space            pause / resume reading the sources",
        "  f                   the findings: failed compiles, recompiles, graph breaks, ...",
        "  h, ?                this help",
        "  q, Esc              quit (from the detail or help view: back)",
        "  F10                 quit from any view",
        "",
        "A row is a (graph_index, runtime_shape, backend) of the events file, or a compile id",
        "of a TORCH_TRACE log; hit% counts cache hits over hits and misses.",
    };
    for (int k = 4; k < LINES - 1; k++) {
        move(k, 0);
        clrtoeol();
    }
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]) && (int)i + 5 < LINES - 1; i++)
        mvprintw((int)i + 5, 2, "%s", lines[i]);
}

static void draw_footer(struct screen *s)
{
    move(LINES - 1, 0);
    attron(attr_of(C_HEADER));
    if (s->view == VIEW_FILTER)
        printw("filter: %s_", s->filter);
    else
        printw("%s  s sort  / filter  p %s  Enter detail  f findings  h help  F10 quit  [%u row%s]%s%s",
               s->view == VIEW_TABLE ? "q quit" : "q back", s->paused ? "resume" : "pause", s->n_rows, s->n_rows == 1 ? "" : "s",
               s->o->log_path ? "  output: " : "", s->o->log_path ? s->o->log_path : "");
    for (int x = getcurx(stdscr); x < COLS && getcury(stdscr) == LINES - 1; x++)
        addch(' ');
    attroff(attr_of(C_HEADER));
}

static void draw(struct screen *s)
{
    draw_header(s);
    if (s->view == VIEW_DETAIL)
        draw_detail(s);
    else if (s->view == VIEW_HELP)
        draw_help();
    else if (s->view == VIEW_FINDINGS)
        draw_findings(s);
    else
        draw_table(s);
    draw_footer(s);
    refresh();
}

/* ---- keys -------------------------------------------------------------------------------- */

static int handle_key(struct screen *s, int ch)
{
    if (s->view == VIEW_FILTER) {
        if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 27) {
            s->view = VIEW_TABLE;
        } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && s->filter_len) {
            s->filter[--s->filter_len] = '\0';
        } else if (ch >= 32 && ch < 127 && s->filter_len + 1 < sizeof(s->filter)) {
            s->filter[s->filter_len++] = (char)ch;
            s->filter[s->filter_len] = '\0';
        }
        s->selected = s->top = 0;
        return HANDLED | REDRAW;
    }
    switch (ch) {
    case KEY_F(10):
        return HANDLED | BREAK_LOOP;
    case KEY_LEFT:
        s->hscroll = s->hscroll > 8 ? s->hscroll - 8 : 0;
        return HANDLED | REDRAW;
    case KEY_RIGHT:
        if (s->hscroll < 4096)
            s->hscroll += 8;
        return HANDLED | REDRAW;
    case 'q':
    case 27:
        if (s->view != VIEW_TABLE) {
            s->view = VIEW_TABLE;
            return HANDLED | REDRAW;
        }
        return HANDLED | BREAK_LOOP;
    case KEY_UP: case 'k':
        if (s->selected)
            s->selected--;
        return HANDLED | REDRAW;
    case KEY_DOWN: case 'j':
        if (s->selected + 1 < s->n_rows)
            s->selected++;
        return HANDLED | REDRAW;
    case KEY_PPAGE:
        s->selected = s->selected > (uint32_t)LINES / 2 ? s->selected - (uint32_t)LINES / 2 : 0;
        return HANDLED | REDRAW;
    case KEY_NPAGE:
        s->selected += (uint32_t)LINES / 2;
        if (s->selected >= s->n_rows)
            s->selected = s->n_rows ? s->n_rows - 1 : 0;
        return HANDLED | REDRAW;
    case 's': case 'S': {
        enum cgs_dash_col order[CGS_DASH_COL_COUNT];
        size_t n = 0, k = 0;
        for (int c = 0; c < CGS_DASH_COL_COUNT; c++) /* the sortable columns, in table order */
            if (cgs_dash_columns[c].flags & CGS_DASH_SORTS)
                order[n++] = (enum cgs_dash_col)c;
        while (k < n && order[k] != s->sort)
            k++;
        s->sort = order[ch == 's' ? (k + 1) % n : (k + n - 1) % n];
        return HANDLED | REDRAW;
    }
    case '/':
        s->view = VIEW_FILTER;
        return HANDLED | REDRAW;
    case 'p': case ' ':
        s->paused = !s->paused;
        return HANDLED | REDRAW;
    case '\n': case '\r': case KEY_ENTER: case 'd':
        s->view = s->view == VIEW_DETAIL ? VIEW_TABLE : VIEW_DETAIL;
        return HANDLED | REDRAW;
    case 'f':
        s->view = s->view == VIEW_FINDINGS ? VIEW_TABLE : VIEW_FINDINGS;
        return HANDLED | REDRAW;
    case 'h': case '?': case KEY_F(1):
        s->view = s->view == VIEW_HELP ? VIEW_TABLE : VIEW_HELP;
        return HANDLED | REDRAW;
    case KEY_RESIZE:
        clear();
        return HANDLED | REDRAW;
    }
    return IGNORED;
}

/* ---- the loop ---------------------------------------------------------------------------- */

int cgs_tui_run(struct cgs_tui_opts *o)
{
    struct screen s;
    bool dirty = true;

    if (crt_init())
        return -1;
    memset(&s, 0, sizeof(s));
    s.o = o;
    s.sort = CGS_DASH_COL_KEY;
    s.now = wall_now();
    s.rate_t = s.now;
    timeout(o->interval_ms > 0 ? o->interval_ms : 100);
    while (!crt.quit) {
        int ch, r;
        s.now = wall_now();
        if (!s.paused && cgs_follow_poll(o->follow))
            dirty = true;
        if (o->child && !o->child_done) {
            int st;
            pid_t w = waitpid(o->child, &st, WNOHANG);
            if (w == o->child) {
                o->child_done = true;
                o->child_status = st;
                cgs_follow_poll(o->follow);
                cgs_follow_finish(o->follow);
                dirty = true;
            }
        }
        if (s.now - s.rate_t >= 1.0) {
            s.rate = (double)(o->follow->dash->events - s.rate_events) / (s.now - s.rate_t);
            s.rate_events = o->follow->dash->events;
            s.rate_t = s.now;
            dirty = true; /* ages move */
        }
        if (dirty) {
            refresh_view(&s);
            draw(&s);
            dirty = false;
        }
        ch = getch();
        if (ch == ERR)
            continue;
        r = handle_key(&s, ch);
        if (r & BREAK_LOOP)
            break;
        if (r & REDRAW)
            dirty = true;
    }
    free(s.rows);
    if (s.findings_made)
        cgs_findings_release(&s.findings);
    crt_done();
    return 0;
}
