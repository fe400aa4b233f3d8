/* lib/pylit (the Python literal reader) and lib/dash (events, TORCH_TRACE, cache index). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/run/dash.h"
#include "lib/readers/json-scan.h"
#include "lib/readers/pylit.h"

static cJSON *lit(const char *s, struct cgs_diag *d)
{
    return cgs_pylit_parse(s, strlen(s), "t.py", d);
}

static void test_pylit_values(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    cJSON *v = lit("{   (None, 0, 'inductor'): ('a\\'b', \"c\\u00e9\", 1),\n"
                   "    (8, 12, 'eager'): (r'x\\y', 'p' 'q', -3,),  # comment\n}", &d);
    const cJSON *p0, *p1;
    (void)state;
    assert_non_null(v);
    assert_int_equal(cJSON_GetArraySize(v), 2);
    p0 = cJSON_GetArrayItem(v, 0);
    p1 = cJSON_GetArrayItem(v, 1);
    assert_true(cJSON_IsNull(cJSON_GetArrayItem(cgs_pylit_key(p0), 0)));
    assert_string_equal(cJSON_GetArrayItem(cgs_pylit_value(p0), 0)->valuestring, "a'b");
    assert_string_equal(cJSON_GetArrayItem(cgs_pylit_value(p0), 1)->valuestring, "c\xc3\xa9");
    assert_int_equal((int)cJSON_GetArrayItem(cgs_pylit_key(p1), 0)->valuedouble, 8);
    assert_string_equal(cJSON_GetArrayItem(cgs_pylit_value(p1), 0)->valuestring, "x\\y");
    assert_string_equal(cJSON_GetArrayItem(cgs_pylit_value(p1), 1)->valuestring, "pq");
    assert_int_equal((int)cJSON_GetArrayItem(cgs_pylit_value(p1), 2)->valuedouble, -3);
    cJSON_Delete(v);
}

static void test_pylit_hostile(void **state)
{
    static const struct {
        const char *text;
        unsigned line, col;
        const char *msg;
    } bad[] = {
        {"{(1, 2): }", 1, 10, "expected a Python literal"},
        {"{'a': 1 'b': 2}", 1, 9, "expected ','"},
        {"[1, 2", 1, 6, "expected ','"},
        {"'abc", 1, 1, "unterminated string"},
        {"__import__('os')", 1, 1, "expected a Python literal"},
        {"99999999999999999999", 1, 1, "does not fit in 64 bits"},
        {"'\\ud800'", 1, 8, "is not a character"},
        {"'a\\x00b'", 1, 9, "NUL"},
        {"{}\n{}", 2, 1, "expected the end of the file"},
        {"", 1, 1, "expected a value"},
    };
    char deep[200];
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct cgs_diag d = CGS_DIAG_INIT;
        cJSON *v = lit(bad[i].text, &d);
        assert_null(v);
        assert_int_equal(d.code, CGS_E_PARSE);
        assert_int_equal(d.line, bad[i].line);
        assert_int_equal(d.col, bad[i].col);
        assert_non_null(strstr(d.msg, bad[i].msg));
    }
    memset(deep, '[', sizeof(deep) - 1);
    deep[sizeof(deep) - 1] = '\0';
    {
        struct cgs_diag d = CGS_DIAG_INIT;
        assert_null(lit(deep, &d));
        assert_non_null(strstr(d.msg, "nested more than 64"));
    }
}

static void feed(struct cgs_dash *d, const char *name, const char *text, size_t chunk)
{
    struct cgs_feed f;
    size_t n = strlen(text);
    cgs_feed_init(&f, name, CGS_SRC_UNKNOWN);
    for (size_t i = 0; i < n; i += chunk)
        cgs_feed_data(d, &f, text + i, n - i < chunk ? n - i : chunk);
    cgs_feed_flush(d, &f);
    cgs_feed_release(&f);
}

/* The same text, in any chunking, gives the same model (a followed file grows in pieces). */
static void test_events_chunks(void **state)
{
    const char *text =
        "{\"ts\": 1.0, \"event\": \"cache_miss\", \"graph_index\": 0, \"runtime_shape\": null, "
        "\"backend\": \"inductor\"}\n"
        "{\"ts\": 2.0, \"event\": \"compile_end\", \"graph_index\": 0, \"runtime_shape\": null, "
        "\"backend\": \"inductor\", \"ms\": 12.5}\n"
        "{\"ts\": 3.0, \"event\": \"cache_hit\", \"graph_index\": 0, \"runtime_shape\": 8, "
        "\"backend\": \"inductor\"}\n"
        "garbage\n"
        "{\"ts\": 4.0, \"event\": \"piece_run\", \"graph_index\": null, \"piece\": \"submod_1\"}";
    (void)state;
    for (size_t chunk = 1; chunk < 64; chunk += 7) {
        struct cgs_dash d;
        cgs_dash_init(&d);
        feed(&d, "e.jsonl", text, chunk);
        assert_int_equal(d.n_rows, 3);
        assert_int_equal(d.bad_lines, 1);
        assert_non_null(strstr(d.first_bad, "e.jsonl:4:"));
        assert_int_equal(d.rows[0]->misses, 1);
        assert_int_equal(d.rows[0]->compiles, 1);
        assert_true(d.rows[0]->compile_ms == 12.5);
        assert_int_equal(d.rows[1]->hits, 1);
        assert_int_equal(d.rows[1]->runtime_shape, 8);
        assert_string_equal(d.rows[2]->piece, "submod_1");
        assert_int_equal(d.piece_runs, 1);
        assert_true(cgs_dash_hit_rate(&d) == 0.5);
        cgs_dash_release(&d);
    }
}

static void test_trace_records(void **state)
{
    const char *text =
        "V1201 13:44:14.000000 1 torch/x.py:1] {\"dynamo_start\": {}, \"frame_id\": 0, "
        "\"frame_compile_id\": 0, \"attempt\": 0}\n"
        "V1201 13:44:14.100000 1 torch/x.py:2] {\"artifact\": {\"name\": \"fx_graph_cache_miss\", "
        "\"encoding\": \"json\"}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 1, "
        "\"has_payload\": \"x\"}\n"
        "\t{\"key\": \"k1\", \"components\": [\"[aa] gm: g\", \"[bb] inductor_config[x]: 1\"]}\n"
        "V1201 13:44:14.200000 1 torch/x.py:3] {\"artifact\": {\"name\": \"recompile_reasons\", "
        "\"encoding\": \"json\"}, \"frame_id\": 0, \"frame_compile_id\": 1, \"attempt\": 0, "
        "\"has_payload\": \"y\"}\n"
        "\t0/0: tensor 'x' size mismatch at index 0. expected 8, actual 32\n"
        "not a trace line\n"
        "V1201 13:44:15.000000 1 torch/x.py:4] {\"compilation_metrics\": {\"compile_id\": "
        "\"0/0\", \"co_name\": \"forward\", \"co_filename\": \"/m/model.py\", "
        "\"co_firstlineno\": 10, \"entire_frame_compile_time_s\": 1.5, \"start_time\": 100}, "
        "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n";
    (void)state;
    for (size_t chunk = 3; chunk < 200; chunk += 31) {
        struct cgs_dash d;
        cgs_dash_init(&d);
        d.keep_lookups = true;
        feed(&d, "trace.log", text, chunk);
        /* the header adds the rows up: one compilation_metrics (0/0; 0/1 has not finished) */
        assert_int_equal(d.compiles, 1);
        assert_int_equal(d.n_rows, 2);
        assert_int_equal(d.rows[0]->compiles + d.rows[1]->compiles, d.compiles);
        assert_int_equal(d.rows[0]->recompiles + d.rows[1]->recompiles, d.recompiles);
        assert_int_equal(d.bad_lines, 1);
        assert_int_equal(d.recompiles, 1);
        assert_int_equal(cgs_dash_cache(&d, "fx_graph")->miss, 1);
        assert_int_equal(d.n_lookups, 1);
        assert_string_equal(d.lookups[0].key, "k1");
        assert_int_equal(d.lookups[0].n_components, 2);
        assert_string_equal(d.rows[0]->compile_id, "0/0");
        assert_string_equal(d.rows[0]->frame, "forward (model.py:10)");
        assert_true(d.rows[0]->compile_ms == 1500);
        assert_int_equal(d.rows[1]->recompiles, 1);
        assert_non_null(strstr(d.rows[1]->reason, "size mismatch"));
        cgs_dash_release(&d);
    }
}

/* torch writes recompile_reasons as a JSON list (in older releases spread over payload lines),
   or as plain text (2.11): either way one reason a line */
static void test_recompile_reasons(void **state)
{
    char *a = cgs_dash_decode_reasons("[\n\"0/0: tensor 'x' size mismatch\",\n\"0/1: L['n'] == 3\"\n]");
    char *b = cgs_dash_decode_reasons("0/0: tensor 'x' size mismatch");
    char *c = cgs_dash_decode_reasons("\"0/0: a \\\"quoted\\\" guard\"");
    char *e = cgs_dash_decode_reasons("[not json");
    (void)state;
    assert_string_equal(a, "0/0: tensor 'x' size mismatch\n0/1: L['n'] == 3");
    assert_string_equal(b, "0/0: tensor 'x' size mismatch");
    assert_string_equal(c, "0/0: a \"quoted\" guard");
    assert_string_equal(e, "[not json");
    free(a);
    free(b);
    free(c);
    free(e);
}

/* rows from two files are two rows, the header agrees with them, a break site is one */
static void test_two_sources(void **state)
{
    const char *text =
        "V1201 13:44:14.000000 1 torch/x.py:1] {\"artifact\": {\"name\": \"dynamo_graph_break_reason\", "
        "\"encoding\": \"string\"}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0, "
        "\"has_payload\": \"x\"}\n"
        "\tGraph Break Reason: print\n\tUser code traceback:\n\t  File \"/m/model.py\", line 12, in forward\n"
        "V1201 13:44:15.000000 1 torch/x.py:4] {\"compilation_metrics\": {\"compile_id\": "
        "\"0/0\", \"co_name\": \"forward\", \"entire_frame_compile_time_s\": 1.5}, "
        "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n"
        "V1201 13:44:16.000000 1 torch/x.py:1] {\"artifact\": {\"name\": \"recompile_reasons\", "
        "\"encoding\": \"json\"}, \"frame_id\": 0, \"frame_compile_id\": 1, \"attempt\": 0, "
        "\"has_payload\": \"x\"}\n"
        "\t[\n\t\"0/0: tensor 'x' size mismatch\"\n\t]\n"
        "V1201 13:44:16.000000 1 torch/x.py:1] {\"artifact\": {\"name\": \"dynamo_graph_break_reason\", "
        "\"encoding\": \"string\"}, \"frame_id\": 0, \"frame_compile_id\": 1, \"attempt\": 0, "
        "\"has_payload\": \"x\"}\n"
        "\tGraph Break Reason: print\n\tUser code traceback:\n\t  File \"/m/model.py\", line 12, in forward\n"
        "V1201 13:44:17.000000 1 torch/x.py:4] {\"compilation_metrics\": {\"compile_id\": "
        "\"0/1\", \"co_name\": \"forward\", \"entire_frame_compile_time_s\": 1.5}, "
        "\"frame_id\": 0, \"frame_compile_id\": 1, \"attempt\": 0}\n";
    struct cgs_dash d;
    uint64_t compiles = 0, recompiles = 0;
    (void)state;
    cgs_dash_init(&d);
    feed(&d, "cold.log", text, 64);
    feed(&d, "warm.log", text, 64);
    assert_int_equal(d.n_sources, 2);
    assert_int_equal(d.n_rows, 4); /* 0/0 and 0/1 of each file */
    for (uint32_t i = 0; i < d.n_rows; i++) {
        compiles += d.rows[i]->compiles;
        recompiles += d.rows[i]->recompiles;
    }
    assert_int_equal(d.compiles, 4);
    assert_int_equal(compiles, d.compiles);
    assert_int_equal(recompiles, d.recompiles);
    assert_int_equal(d.recompiles, 2);
    assert_string_equal(d.rows[1]->reason, "0/0: tensor 'x' size mismatch");
    assert_int_equal(d.n_breaks, 1); /* one site, met four times */
    assert_int_equal(d.breaks[0].hits, 4);
    assert_int_equal(d.graph_breaks, 4);
    assert_true(cgs_dash_id_in_list(d.breaks[0].compile_ids, "0/1"));
    assert_false(cgs_dash_id_in_list(d.breaks[0].compile_ids, "0/2"));
    cgs_dash_release(&d);
}

/* the configurations compilation_metrics carries are checked, not decoded, unless the texts
 * are kept (the page shows every field) */
static void test_unread_configs(void **state)
{
    const char *rec = "{\"compilation_metrics\": {\"compile_id\": \"0/0\", \"inductor_config\": "
                      "\"{\\\"max_autotune\\\": true}\", \"dynamo_config\": 7, "
                      "\"entire_frame_compile_time_s\": 1.5}}";
    static const char *const unread[] = {"inductor_config", "dynamo_config", NULL};
    struct cgs_json_error e = {.unread_keys = unread};
    const cJSON *m;
    cJSON *o = cgs_json_parse(rec, strlen(rec), &e);
    char *bad;
    (void)state;
    assert_non_null(o);
    m = cJSON_GetObjectItemCaseSensitive(o, "compilation_metrics");
    /* a string under an unread key stands as ""; another type is read as it is */
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "inductor_config")->valuestring, "");
    assert_int_equal((int)cJSON_GetObjectItemCaseSensitive(m, "dynamo_config")->valuedouble, 7);
    assert_true(cJSON_GetObjectItemCaseSensitive(m, "entire_frame_compile_time_s")->valuedouble ==
                1.5);
    cJSON_Delete(o);
    e = (struct cgs_json_error){0};
    o = cgs_json_parse(rec, strlen(rec), &e);
    m = cJSON_GetObjectItemCaseSensitive(o, "compilation_metrics");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "inductor_config")->valuestring,
                        "{\"max_autotune\": true}");
    cJSON_Delete(o);
    /* unread is not unchecked: a bad escape in it is an error at its place */
    bad = strdup(rec);
    *strstr(bad, "\\\"max") = '\\', strstr(bad, "\\\"max")[1] = 'q';
    e = (struct cgs_json_error){.unread_keys = unread};
    assert_null(cgs_json_parse(bad, strlen(bad), &e));
    assert_int_equal(e.off, (size_t)(strstr(bad, "\\qmax") - bad + 1));
    free(bad);

    /* in the model: the compile's time read either way; the page's text has the config */
    const char *log = "V1201 13:44:15.000000 1 torch/x.py:4] {\"compilation_metrics\": "
                      "{\"compile_id\": \"0/0\", \"co_name\": \"forward\", \"inductor_config\": "
                      "\"{\\\"max_autotune\\\": true}\", \"entire_frame_compile_time_s\": 1.5}, "
                      "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n";
    for (int keep = 0; keep < 2; keep++) {
        struct cgs_dash d;
        cgs_dash_init(&d);
        d.keep_texts = keep;
        feed(&d, "t.log", log, 16);
        assert_int_equal(d.n_rows, 1);
        assert_true(d.rows[0]->compile_ms == 1500);
        if (keep) {
            assert_non_null(d.rows[0]->metrics_text);
            assert_non_null(strstr(d.rows[0]->metrics_text, "max_autotune"));
        }
        cgs_dash_release(&d);
    }
}

/* a log's last line cut mid-record (a truncated log) is said to be cut; a bad line that a
 * newline ends is not */
static void test_cut_last_line(void **state)
{
    const char *head = "V1201 13:44:14.000000 1 torch/x.py:1] {\"dynamo_start\": {\"stack\": []}, "
                       "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n";
    char text[512];
    (void)state;
    for (int newline = 0; newline < 2; newline++) {
        struct cgs_dash d;
        snprintf(text, sizeof(text), "%sV1201 13:44:15.000000 1 torch/x.py:4] "
                 "{\"compilation_metrics\": {\"compile_id\": \"0/0\", \"co_na%s", head,
                 newline ? "\n" : "");
        cgs_dash_init(&d);
        feed(&d, "t.log", text, 7);
        assert_int_equal(d.bad_lines, 1);
        assert_non_null(strstr(d.first_bad, "t.log:2: the TORCH_TRACE record is not a JSON"));
        if (newline)
            assert_null(strstr(d.first_bad, "cut short"));
        else
            assert_non_null(strstr(d.first_bad, "its last line, cut short"));
        cgs_dash_release(&d);
    }
}

static void test_kind_and_rank(void **state)
{
    (void)state;
    assert_int_equal(cgs_rank_from_name("dedicated_log_torch_trace_rank_3_ab.log"), 3);
    assert_int_equal(cgs_rank_from_name("x.log"), -1);
    assert_int_equal(cgs_src_kind_guess("a.jsonl", "x", 1), CGS_SRC_EVENTS);
    assert_int_equal(cgs_src_kind_guess("magi_compile_cache.py", "{", 1), CGS_SRC_CACHE_INDEX);
    assert_int_equal(cgs_src_kind_guess(NULL, "{   (None", 9), CGS_SRC_CACHE_INDEX);
    assert_int_equal(cgs_src_kind_guess(NULL, "V1201 13:44:14.0 1 a.py:1] {}", 29), CGS_SRC_TRACE);
    assert_int_equal(cgs_src_kind_guess(NULL, "hello", 5), CGS_SRC_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pylit_values),   cmocka_unit_test(test_pylit_hostile),
        cmocka_unit_test(test_recompile_reasons), cmocka_unit_test(test_two_sources),
        cmocka_unit_test(test_events_chunks),  cmocka_unit_test(test_trace_records),
        cmocka_unit_test(test_kind_and_rank), cmocka_unit_test(test_unread_configs),
        cmocka_unit_test(test_cut_last_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
