/*
 * ncursesw through a table filled on first use (lib/base/dynlib.h): include after <curses.h>
 * (viz/tui.c does), call cgs_curses_load() first, then use curses as usual; its own macros
 * (getch, clear, attron, ...) expand to these names. viz/curses-api.c alone sees the real
 * declarations.
 */
#ifndef CGS_VIZ_CURSES_API_H
#define CGS_VIZ_CURSES_API_H

#include <curses.h>

#include "lib/base/diag.h"
#include "lib/base/dynlib.h"

#define CGS_CURSES_SYMBOLS(X)                                                                      \
    X(COLS) X(LINES) X(stdscr) X(cbreak) X(curs_set) X(delscreen) X(endwin) X(has_colors)          \
    X(init_pair) X(intrflush) X(keypad) X(mvprintw) X(newterm) X(noecho) X(nonl) X(printw)         \
    X(start_color) X(use_default_colors) X(waddch) X(waddnstr) X(wattr_off) X(wattr_on)            \
    X(wclear) X(wclrtoeol) X(wgetch) X(wmove) X(wrefresh) X(wtimeout)

/* the table, and cgs_curses_load(): open ncursesw (once) and fill it */
CGS_DYNLIB_DECLARE(cgs_curses_api, cgs_curses_api, CGS_CURSES_SYMBOLS, cgs_curses_load)

#ifndef CGS_CURSES_API_TABLE
#undef COLS
#define COLS (*cgs_curses_api.COLS)
#undef LINES
#define LINES (*cgs_curses_api.LINES)
#undef stdscr
#define stdscr (*cgs_curses_api.stdscr)
#undef cbreak
#define cbreak (*cgs_curses_api.cbreak)
#undef curs_set
#define curs_set (*cgs_curses_api.curs_set)
#undef delscreen
#define delscreen (*cgs_curses_api.delscreen)
#undef endwin
#define endwin (*cgs_curses_api.endwin)
#undef has_colors
#define has_colors (*cgs_curses_api.has_colors)
#undef init_pair
#define init_pair (*cgs_curses_api.init_pair)
#undef intrflush
#define intrflush (*cgs_curses_api.intrflush)
#undef keypad
#define keypad (*cgs_curses_api.keypad)
#undef mvprintw
#define mvprintw (*cgs_curses_api.mvprintw)
#undef newterm
#define newterm (*cgs_curses_api.newterm)
#undef noecho
#define noecho (*cgs_curses_api.noecho)
#undef nonl
#define nonl (*cgs_curses_api.nonl)
#undef printw
#define printw (*cgs_curses_api.printw)
#undef start_color
#define start_color (*cgs_curses_api.start_color)
#undef use_default_colors
#define use_default_colors (*cgs_curses_api.use_default_colors)
#undef waddch
#define waddch (*cgs_curses_api.waddch)
#undef waddnstr
#define waddnstr (*cgs_curses_api.waddnstr)
#undef wattr_off
#define wattr_off (*cgs_curses_api.wattr_off)
#undef wattr_on
#define wattr_on (*cgs_curses_api.wattr_on)
#undef wclear
#define wclear (*cgs_curses_api.wclear)
#undef wclrtoeol
#define wclrtoeol (*cgs_curses_api.wclrtoeol)
#undef wgetch
#define wgetch (*cgs_curses_api.wgetch)
#undef wmove
#define wmove (*cgs_curses_api.wmove)
#undef wrefresh
#define wrefresh (*cgs_curses_api.wrefresh)
#undef wtimeout
#define wtimeout (*cgs_curses_api.wtimeout)
#endif

#endif
