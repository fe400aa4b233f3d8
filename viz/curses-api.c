/* The ncursesw table (viz/curses-api.h), filled on first use. */
#define CGS_CURSES_API_TABLE
#include "viz/curses-api.h"

#include "gen/sonames.h"

struct cgs_curses_api cgs_curses_api;

#define CURSES_ROW(name) CGS_DYNLIB_ROW(struct cgs_curses_api, name)
static const struct cgs_dynsym curses_syms[] = {CGS_CURSES_SYMBOLS(CURSES_ROW)};

static struct cgs_dynlib curses_lib = {
    "ncursesw", CGS_SONAMES_CURSES, "the dashboard needs ncursesw; Debian: apt-get install libncursesw6",
    curses_syms, sizeof(curses_syms) / sizeof(curses_syms[0]), &cgs_curses_api, 0,
};

int cgs_curses_load(struct cgs_diag *d)
{
    return cgs_dynlib_load(&curses_lib, d);
}
