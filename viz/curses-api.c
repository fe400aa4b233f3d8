/* The ncursesw table (viz/curses-api.h), filled on first use. */
#define CGS_CURSES_API_TABLE
#include "viz/curses-api.h"

#include "gen/sonames.h"

#define CGS_DYNLIB_TYPE struct cgs_curses_api
CGS_DYNLIB_DEFINE(cgs_curses_api, cgs_curses_api, CGS_CURSES_SYMBOLS, cgs_curses_load, "ncursesw", CGS_SONAMES_CURSES,
                  "the dashboard needs ncursesw; Debian: apt-get install libncursesw6")
