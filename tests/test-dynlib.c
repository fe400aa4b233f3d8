/* lib/dynlib: libraries opened on first use, their tables, and what a missing one says. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "lib/base/dynlib.h"
#include "lib/readers/zip-api.h"
#include "viz/gv-api.h"

/* viz/curses-api.h cannot share a file with Graphviz's headers (both declare 'box') */
int cgs_curses_load(struct cgs_diag *d);

/* a table of two functions of libm, looked up by name, called through the table */
struct m_api {
    double (*cos)(double);
    double (*sqrt)(double);
};
static const struct cgs_dynsym m_syms[] = {
    {"cos", offsetof(struct m_api, cos)},
    {"sqrt", offsetof(struct m_api, sqrt)},
};

static void test_table_filled_once(void **state)
{
    struct m_api t = {0};
    struct cgs_dynlib l = {"libm", "libm.so.6", "install libm", m_syms, 2, &t, 0};
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)state;
    assert_int_equal(cgs_dynlib_load(&l, &d), 0);
    assert_true(l.bound);
    assert_non_null(t.sqrt);
    assert_true(t.sqrt(2.25) == 1.5);
    assert_true(t.cos(0.0) == 1.0);
    t.cos = NULL; /* a second load is a no-op: the table is not filled again */
    assert_int_equal(cgs_dynlib_load(&l, &d), 0);
    assert_null(t.cos);
}

static void test_missing_library_named_with_what_to_install(void **state)
{
    struct m_api t = {0};
    struct cgs_dynlib l = {"Frobnicator", "libm.so.6 libcgscope-no-such-library.so.9",
                           "Debian: apt-get install frob", m_syms, 2, &t, 0};
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)state;
    assert_int_equal(cgs_dynlib_load(&l, &d), -1);
    assert_int_equal(d.code, CGS_E_IO);
    assert_false(l.bound);
    assert_non_null(strstr(d.msg, "cannot load Frobnicator: "));
    assert_non_null(strstr(d.msg, "libcgscope-no-such-library.so.9"));
    assert_non_null(strstr(d.msg, "(Debian: apt-get install frob)"));
    assert_null(t.cos); /* nothing half-bound */
}

static void test_missing_symbol_named(void **state)
{
    static const struct cgs_dynsym syms[] = {
        {"cos", offsetof(struct m_api, cos)},
        {"cgscope_no_such_function", offsetof(struct m_api, sqrt)},
    };
    struct m_api t = {0};
    struct cgs_dynlib l = {"libm", "libm.so.6", "install it", syms, 2, &t, 0};
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)state;
    assert_int_equal(cgs_dynlib_load(&l, &d), -1);
    assert_false(l.bound);
    assert_string_equal(d.msg, "cannot load libm: its library has no 'cgscope_no_such_function' "
                               "(install it)");
}

static void test_no_names_recorded(void **state)
{
    struct m_api t = {0};
    struct cgs_dynlib l = {"libm", "  ", "install it", m_syms, 2, &t, 0};
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)state;
    assert_int_equal(cgs_dynlib_load(&l, &d), -1);
    assert_non_null(strstr(d.msg, "recorded no library"));
}

/* the three real tables: every name the code uses is in its library */
static void test_real_libraries_bind(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)state;
    assert_int_equal(cgs_zip_load(&d), 0);
    assert_int_equal(cgs_gv_load(&d), 0);
    assert_int_equal(cgs_curses_load(&d), 0);
    /* through the names the code uses: libzip's message for an error code */
    zip_error_t ze;
    zip_error_init_with_code(&ze, ZIP_ER_NOENT);
    assert_non_null(strstr(zip_error_strerror(&ze), "No such file"));
    zip_error_fini(&ze);
    /* and a graph made and counted by cgraph */
    Agraph_t *g = agopen((char[]){"t"}, Agdirected, NULL);
    assert_non_null(g);
    agnode(g, (char[]){"a"}, 1);
    agnode(g, (char[]){"b"}, 1);
    assert_int_equal(agnnodes(g), 2);
    agclose(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_filled_once),
        cmocka_unit_test(test_missing_library_named_with_what_to_install),
        cmocka_unit_test(test_missing_symbol_named),
        cmocka_unit_test(test_no_names_recorded),
        cmocka_unit_test(test_real_libraries_bind),
    };
    return cmocka_run_group_tests_name("dynlib", tests, NULL, NULL);
}
