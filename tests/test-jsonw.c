/* lib/jsonw: the same text as cJSON_Print (and, compact, as cJSON_PrintUnformatted), for every
 * kind of value cJSON holds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/buf.h"
#include "lib/writers/jsonw.h"

static bool refuse(void *ctx, const char *p, size_t n)
{
    (void)ctx, (void)p, (void)n;
    return false;
}

/* jsonw's text of doc equals cJSON_Print's, and its compact text cJSON_PrintUnformatted's. */
static void same_as_cjson(cJSON *doc)
{
    for (int compact = 0; compact < 2; compact++) {
        struct cgs_buf b;
        struct jsonw w;
        char *want = compact ? cJSON_PrintUnformatted(doc) : cJSON_Print(doc);
        cgs_buf_init(&b);
        jsonw_init(&w, jsonw_to_buf, &b);
        if (compact)
            jsonw_compact(&w, doc);
        else
            jsonw_value(&w, doc, 0);
        assert_true(jsonw_finish(&w));
        cgs_buf_addch(&b, 0);
        assert_string_equal(b.buf, want);
        free(want);
        cgs_buf_release(&b);
    }
    cJSON_Delete(doc);
}

static void test_numbers(void **state)
{
    static const double v[] = {0, -0.0, 1, -1, 42, 2147483647.0, 2147483648.0, -2147483649.0,
                               1e15 - 1, 1e15, 1e16, 123456789012345678.0, 9.2e18, 1e300,
                               0.1, 1.0 / 3, -2.5, 6.02e23, 1e-7, 5e-324, 0.30000000000000004};
    cJSON *doc = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(doc, "n");
    (void)state;
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(NAN));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(INFINITY));
    same_as_cjson(doc);
}

static void test_strings_and_nesting(void **state)
{
    cJSON *doc = cJSON_CreateObject(), *o, *a;
    (void)state;
    cJSON_AddStringToObject(doc, "plain", "submod_0");
    cJSON_AddStringToObject(doc, "escapes", "a\"b\\c\b\f\n\r\t\x01\x1f end");
    cJSON_AddStringToObject(doc, "utf8", "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82");
    cJSON_AddStringToObject(doc, "", "");
    cJSON_AddNullToObject(doc, "null");
    cJSON_AddBoolToObject(doc, "t", 1);
    cJSON_AddBoolToObject(doc, "f", 0);
    cJSON_AddObjectToObject(doc, "empty_object");
    cJSON_AddArrayToObject(doc, "empty_array");
    a = cJSON_AddArrayToObject(doc, "objects");
    for (int i = 0; i < 3; i++) {
        o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "i", i);
        cJSON_AddItemToObject(o, "inner", cJSON_CreateIntArray((const int[]){1, 2, 3}, 3));
        cJSON_AddItemToObject(o, "deeper", cJSON_CreateObject());
        cJSON_AddItemToObject(cJSON_GetObjectItem(o, "deeper"), "x",
                              cJSON_CreateStringArray((const char *const[]){"p", "q"}, 2));
        cJSON_AddItemToArray(a, o);
    }
    a = cJSON_AddArrayToObject(doc, "arrays");
    cJSON_AddItemToArray(a, cJSON_CreateArray());
    cJSON_AddItemToArray(a, cJSON_CreateIntArray((const int[]){7}, 1));
    cJSON_AddItemToObject(doc, "raw", cJSON_CreateRaw("{\"r\": 1}"));
    same_as_cjson(doc);
    same_as_cjson(cJSON_CreateString("top-level string"));
    same_as_cjson(cJSON_CreateArray());
}

static void test_long_text_and_failure(void **state)
{
    cJSON *doc = cJSON_CreateArray();
    char *big = malloc(3u << 20);
    struct jsonw w;
    (void)state;
    memset(big, 'x', (3u << 20) - 1);
    big[(3u << 20) - 1] = 0;
    for (int i = 0; i < 3; i++)
        cJSON_AddItemToArray(doc, cJSON_CreateString(big)); /* longer than the buffer */
    free(big);
    jsonw_init(&w, refuse, NULL);
    jsonw_value(&w, doc, 0);
    assert_false(jsonw_finish(&w));
    same_as_cjson(doc);
}

/* Objects written straight (jsonw_open, jsonw_field, jsonw_close) are those cJSON_Print writes:
 * empty, nested in an object and in an array, keys to escape, at each depth. */
static void test_objects_written(void **state)
{
    (void)state;
    for (int depth = 0; depth < 4; depth++) {
        struct cgs_buf a = CGS_BUF_INIT;
        struct jsonw w;
        struct jsonw_obj o, in, empty;
        cJSON *t = cJSON_CreateObject(), *x, *arr;
        char *want;
        bool compact = depth == 3; /* and as cJSON_PrintUnformatted writes it */

        jsonw_init(&w, jsonw_to_buf, &a);
        w.compact = compact;
        jsonw_open(&w, &o, depth);
        jsonw_field(&w, &o, "plain");
        jsonw_number(&w, 2.5);
        cJSON_AddNumberToObject(t, "plain", 2.5);
        jsonw_field(&w, &o, "quote\"d\tkey");
        jsonw_string(&w, "v");
        cJSON_AddStringToObject(t, "quote\"d\tkey", "v");
        jsonw_field(&w, &o, "empty");
        jsonw_open(&w, &empty, o.depth);
        jsonw_close(&w, &empty);
        cJSON_AddObjectToObject(t, "empty");
        jsonw_field(&w, &o, "in");
        jsonw_open(&w, &in, o.depth);
        jsonw_field(&w, &in, "n");
        jsonw_number(&w, 1e300);
        jsonw_close(&w, &in);
        x = cJSON_AddObjectToObject(t, "in");
        cJSON_AddNumberToObject(x, "n", 1e300);
        jsonw_field(&w, &o, "list");
        jsonw_raw(&w, "[", 1);
        jsonw_open(&w, &in, o.depth + 1); /* an array is a level too */
        jsonw_field(&w, &in, "k");
        jsonw_raw(&w, "null", 4);
        jsonw_close(&w, &in);
        jsonw_raw(&w, "]", 1);
        arr = cJSON_AddArrayToObject(t, "list");
        x = cJSON_CreateObject();
        cJSON_AddNullToObject(x, "k");
        cJSON_AddItemToArray(arr, x);
        jsonw_close(&w, &o);
        assert_true(jsonw_finish(&w));

        struct cgs_buf b = CGS_BUF_INIT;
        jsonw_init(&w, jsonw_to_buf, &b);
        w.compact = compact;
        jsonw_tree(&w, t, depth);
        assert_true(jsonw_finish(&w));
        cgs_buf_addch(&a, 0);
        cgs_buf_addch(&b, 0);
        assert_string_equal(a.buf, b.buf);
        if (compact) {
            want = cJSON_PrintUnformatted(t);
            assert_string_equal(a.buf, want);
            free(want);
        }
        if (depth == 0) { /* and jsonw_value is cJSON_Print */
            want = cJSON_Print(t);
            assert_string_equal(a.buf, want);
            free(want);
        }
        cJSON_Delete(t);
        cgs_buf_release(&a);
        cgs_buf_release(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_strings_and_nesting),
        cmocka_unit_test(test_long_text_and_failure),
        cmocka_unit_test(test_objects_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
