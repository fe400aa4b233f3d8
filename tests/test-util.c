/*
 * The small library modules everything stands on: arena, buf, strmap, diag, file, json-scan,
 * ops presets' table shape. Each test checks behaviour a caller relies on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/arena.h"
#include "lib/base/buf.h"
#include "lib/base/diag.h"
#include "lib/readers/file.h"
#include "lib/readers/json-scan.h"
#include "lib/readers/pyframe.h"
#include "lib/readers/sniff.h"
#include "lib/base/strmap.h"

static void test_arena(void **state)
{
    struct cgs_arena a;
    char *big, *s;
    (void)state;
    cgs_arena_init(&a);
    for (int i = 0; i < 10000; i++) {
        void *p = cgs_arena_alloc(&a, (size_t)(i % 97) + 1);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % alignof(max_align_t), 0); /* every block aligned */
        memset(p, 0xAB, (size_t)(i % 97) + 1);                 /* ASan: all of it usable */
    }
    big = cgs_arena_alloc(&a, (size_t)40 << 20); /* past the largest block size */
    assert_non_null(big);
    big[((size_t)40 << 20) - 1] = 1;
    {
        int *z = cgs_arena_calloc(&a, 1000, sizeof(int));
        for (int i = 0; i < 1000; i++)
            assert_int_equal(z[i], 0);
    }
    s = cgs_arena_strndup(&a, "abcdef", 3);
    assert_string_equal(s, "abc");
    assert_string_equal(cgs_arena_strdup(&a, "x y"), "x y");
    cgs_arena_release(&a);
}

static void test_buf(void **state)
{
    struct cgs_buf b = CGS_BUF_INIT;
    char *d;
    (void)state;
    assert_string_equal(b.buf, ""); /* never NULL */
    for (int i = 0; i < 1000; i++)
        cgs_buf_addf(&b, "%d,", i);
    assert_int_equal(b.len, strlen(b.buf));
    assert_memory_equal(b.buf, "0,1,2,", 6);
    cgs_buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.buf, "");
    cgs_buf_add(&b, "a\0b", 3); /* binary-safe */
    assert_int_equal(b.len, 3);
    cgs_buf_addch(&b, 'c');
    assert_memory_equal(b.buf, "a\0bc", 5);
    d = cgs_buf_detach(&b);
    assert_string_equal(b.buf, "");
    assert_int_equal(b.len, 0);
    free(d);
    cgs_buf_release(&b);
}

static void test_strmap(void **state)
{
    struct cgs_strmap *m = cgs_strmap_new();
    static char keys[5000][16];
    (void)state;
    for (int i = 0; i < 5000; i++) {
        snprintf(keys[i], sizeof(keys[i]), "k%d", i);
        assert_ptr_equal(cgs_strmap_put(m, keys[i], keys[i]), keys[i]);
    }
    for (int i = 0; i < 5000; i++)
        assert_ptr_equal(cgs_strmap_get(m, keys[i]), keys[i]); /* found across rehashes */
    assert_ptr_equal(cgs_strmap_put(m, "k7", (void *)1), keys[7]); /* present: kept */
    assert_null(cgs_strmap_get(m, "k5000"));
    assert_null(cgs_strmap_get(m, ""));
    assert_int_equal(m->count, 5000);
    cgs_strmap_set(m, "k7", (void *)1); /* set: replaced, not added */
    assert_ptr_equal(cgs_strmap_get(m, "k7"), (void *)1);
    cgs_strmap_set(m, "new", (void *)2);
    assert_ptr_equal(cgs_strmap_get(m, "new"), (void *)2);
    assert_int_equal(m->count, 5001);
    /* the one string hash: of the bytes, not of where they are */
    {
        char copy[] = "abcdefghij";
        assert_true(cgs_str_hash("abcdefghij", 10) == cgs_str_hash(copy, 10));
    }
    assert_true(cgs_str_hash("abcdefghij", 10) != cgs_str_hash("abcdefghik", 10));
    assert_true(cgs_str_hash("a", 1) != cgs_str_hash("a\0", 2));
    cgs_strmap_free(m);
}

static void test_diag(void **state)
{
    struct cgs_diag d = CGS_DIAG_INIT;
    char out[1024];
    char longmsg[2000];
    (void)state;
    assert_int_equal(cgs_diag_set(&d, CGS_E_SCHEMA, "expected %s", "a string"), -CGS_E_SCHEMA);
    cgs_diag_at(&d, "g.json", 3, 7);
    cgs_diag_path(&d, "nodes[%d].args", 2);
    cgs_diag_format(&d, out, sizeof(out));
    assert_string_equal(out, "g.json:3:7: error: expected a string (at nodes[2].args)");
    cgs_diag_clear(&d);
    assert_int_equal(d.code, 0);
    cgs_diag_set(&d, CGS_E_IO, "read error");
    cgs_diag_at(&d, "x", 0, 0);
    cgs_diag_format(&d, out, sizeof(out));
    assert_string_equal(out, "x: error: read error"); /* unknown place left out */
    memset(longmsg, 'm', sizeof(longmsg) - 1);
    longmsg[sizeof(longmsg) - 1] = '\0';
    cgs_diag_set(&d, CGS_E_LIMIT, "%s", longmsg); /* truncated, never overflowing */
    assert_true(strlen(d.msg) < sizeof(d.msg));
    cgs_diag_format(&d, out, 16);
    assert_int_equal(strlen(out), 15);
    for (int e = 1; e < CGS_E_COUNT; e++) {
        assert_non_null(cgs_strerror(e));
        assert_string_equal(cgs_strerror(e), cgs_strerror(-e));
    }
    /* a NULL diag is accepted everywhere */
    cgs_diag_clear(NULL);
    assert_int_equal(cgs_diag_set(NULL, CGS_E_IO, "x"), -CGS_E_IO);
}

static void test_file(void **state)
{
    char path[] = "/tmp/cgs-util-XXXXXX";
    int fd = mkstemp(path);
    char *buf;
    size_t len;
    uint32_t line, col;
    struct cgs_diag d = CGS_DIAG_INIT;
    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "ab\ncd\xc3\xa9x", 8), 8);
    close(fd);
    assert_int_equal(cgs_read_file(path, &buf, &len, 100, &d), 0);
    assert_int_equal(len, 8);
    assert_int_equal(buf[len], '\0'); /* NUL-terminated */
    cgs_text_position(buf, len, 7, &line, &col);
    assert_int_equal(line, 2);
    assert_int_equal(col, 4); /* "cdé": the é counts as one column */
    free(buf);
    assert_true(cgs_read_file(path, &buf, &len, 4, &d) < 0);
    assert_int_equal(d.code, CGS_E_LIMIT);
    unlink(path);
    assert_true(cgs_read_file("/tmp", &buf, &len, 100, &d) < 0);
    assert_non_null(strstr(d.msg, "is a folder"));
    assert_true(cgs_read_file("/nonexistent/x", &buf, &len, 100, &d) < 0);
    assert_int_equal(d.code, CGS_E_IO);
    assert_true(cgs_path_is_stdin("-"));
    assert_false(cgs_path_is_stdin("--"));
    assert_true(cgs_path_has_ext("A.PT2", ".pt2"));
    assert_false(cgs_path_has_ext(".pt2", ".pt2"));
}

static void test_json_scan(void **state)
{
    static const struct {
        const char *text;
        int code;
        const char *msg;
    } cases[] = {
        {"{\"a\": [1, 2.5e3, -0, true, null, \"x\\u00e9\\ud83d\\ude00\"]}", 0, NULL},
        {"[1, 2", -CGS_E_PARSE, ""},
        {"\"\\ud800\"", -CGS_E_PARSE, "lone high surrogate"},
        {"\"\\u0000\"", -CGS_E_PARSE, "\\u0000"},
        {"\"\xff\"", -CGS_E_PARSE, "invalid UTF-8"},
        {"\"\xe0\x80\x80\"", -CGS_E_PARSE, "invalid UTF-8"}, /* overlong */
        {"\"\xed\xa0\x80\"", -CGS_E_PARSE, "invalid UTF-8"}, /* an encoded surrogate */
        {"\"\xf0\x9f\x98\x80 ok\"", 0, NULL},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cgs_jscan s;
        size_t end;
        int rc;
        cgs_jscan_init(&s, cases[i].text, strlen(cases[i].text), "the end of the file");
        rc = cgs_jscan_value(&s, 0, &end);
        if (cases[i].code == 0) {
            assert_int_equal(rc, 0);
            assert_int_equal(end, strlen(cases[i].text));
        } else {
            assert_int_equal(rc, cases[i].code);
            assert_non_null(strstr(s.err_msg, cases[i].msg));
        }
        cgs_jscan_release(&s);
    }
}

/* Every special byte at every position of a long string (the scanner reads 16 and 8 bytes at
 * a time): the string's end, an escape, a control byte, invalid and valid UTF-8, each found
 * where it is. */
static void test_json_scan_positions(void **state)
{
    static const struct {
        const char *ins;
        int code;
    } kinds[] = {{"\\n", 0}, {"\\\"", 0}, {"\x01", -CGS_E_PARSE}, {"\xff", -CGS_E_PARSE},
                 {"\xc3\xa9", 0}, {"\\q", -CGS_E_PARSE}};
    (void)state;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        for (size_t at = 1; at < 48; at++) {
            char text[128];
            size_t n = 0, end = 0, ins = strlen(kinds[k].ins);
            struct cgs_jscan s;
            text[n++] = '"';
            for (size_t i = 1; i < at; i++)
                text[n++] = 'a';
            memcpy(text + n, kinds[k].ins, ins);
            n += ins;
            for (size_t i = 0; i < 40; i++)
                text[n++] = 'b';
            text[n++] = '"';
            text[n] = '\0';
            cgs_jscan_init(&s, text, n, "the end");
            int rc = cgs_jscan_string(&s, 0, &end);
            if (rc != kinds[k].code)
                fail_msg("kind %zu at %zu: rc %d (%s)", k, at, rc, s.err_msg);
            if (!rc)
                assert_int_equal(end, n);
            else
                assert_true(s.err_off >= at && s.err_off <= at + 1);
            cgs_jscan_release(&s);
        }
}

/* Python traceback frames, as torch writes a node's stack_trace (the last frame is the user's
   line) and a graph break's "User code traceback:" (frames after it, the compiler's own after
   "Traceback (most recent call last)") */
static void test_pyframe(void **state)
{
    const char *st = "  File \"/home/u/train.py\", line 40, in <module>\n    loss = model(x)\n"
                     "  File \"/home/u/models/attn.py\", line 587, in forward\n"
                     "    a = torch.ops.cgs.attention(q, k, v)\n";
    const char *brk = "User code traceback:\n  File \"/x/model.py\", line 12, in forward\n"
                      "    print(\"hi\")\n\nTraceback (most recent call last):\n"
                      "  File \"/torch/_dynamo/x.py\", line 9, in f\n    raise\n";
    struct cgs_pyframe f;
    struct cgs_buf b = CGS_BUF_INIT;
    (void)state;
    assert_true(cgs_pyframe_last(st, NULL, &f));
    assert_int_equal(f.line, 587);
    assert_int_equal(f.name_len, 7);
    assert_memory_equal(f.name, "forward", 7);
    cgs_pyframe_format(&f, true, &b);
    assert_string_equal(b.buf, "attn.py:587: a = torch.ops.cgs.attention(q, k, v)");
    cgs_buf_release(&b);
    cgs_pyframe_format(&f, false, &b);
    assert_string_equal(b.buf, "attn.py:587");
    cgs_buf_release(&b);
    assert_true(cgs_pyframe_last(brk, strstr(brk, "\nTraceback"), &f));
    assert_int_equal(f.file_len, strlen("/x/model.py"));
    assert_memory_equal(f.file, "/x/model.py", f.file_len);
    assert_int_equal(f.line, 12);
    assert_false(cgs_pyframe_last("no frame here", NULL, &f));
    assert_false(cgs_pyframe_last("File \"unterminated", NULL, &f));
}

/* the kinds every reader names a wrong file by, from the first bytes */
static void test_sniff(void **state)
{
    (void)state;
    assert_int_equal(cgs_sniff("\x89PNG\r\n\x1a\n", 8, NULL), CGS_IN_PNG);
    assert_int_equal(cgs_sniff("\x1f\x8b\x08", 3, NULL), CGS_IN_GZIP);
    assert_int_equal(cgs_sniff("\xfd" "7zXZ\0", 6, NULL), CGS_IN_XZ);
    assert_int_equal(cgs_sniff("\x28\xb5\x2f\xfd", 4, NULL), CGS_IN_ZSTD);
    assert_int_equal(cgs_sniff("CGSTRACE\1\0\0\0", 12, NULL), CGS_IN_CUPTI_TRACE);
    assert_int_equal(cgs_sniff("", 0, NULL), CGS_IN_EMPTY);
    assert_int_equal(cgs_sniff("{\"format\":\"cgscope.graph\"", strlen("{\"format\":\"cgscope.graph\""), NULL), CGS_IN_GRAPH_JSON);
    assert_int_equal(cgs_sniff("{(None, 0, 'inductor'): ('k', 'p', 0)}", strlen("{(None, 0, 'inductor'): ('k', 'p', 0)}"), NULL), CGS_IN_CACHE_INDEX);
    assert_int_equal(cgs_sniff("{\"ts\": 1, \"event\": \"cache_hit\"}\n", strlen("{\"ts\": 1, \"event\": \"cache_hit\"}\n"), NULL), CGS_IN_EVENTS);
    assert_int_equal(cgs_sniff("V1201 13:44:14.000000 1 torch/x.py:1] {\"a\": 1}\n", strlen("V1201 13:44:14.000000 1 torch/x.py:1] {\"a\": 1}\n"), NULL),
                     CGS_IN_TRACE_LOG);
    assert_int_equal(cgs_sniff("PK\x03\x04", 4, NULL), CGS_IN_ZIP);
    assert_int_equal(cgs_sniff("hello", 5, NULL), CGS_IN_TEXT);
    assert_true(cgs_input_kind_compressed(CGS_IN_XZ));
    assert_false(cgs_input_kind_compressed(CGS_IN_BZIP2));
    assert_string_equal(cgs_input_kind_what(CGS_IN_PNG), "a PNG image");
    assert_non_null(cgs_input_kind_hint(CGS_IN_CUPTI_TRACE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena), cmocka_unit_test(test_buf),  cmocka_unit_test(test_strmap),
        cmocka_unit_test(test_pyframe), cmocka_unit_test(test_sniff),
        cmocka_unit_test(test_diag),  cmocka_unit_test(test_file), cmocka_unit_test(test_json_scan), cmocka_unit_test(test_json_scan_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
