/* lib/json-alloc: cJSON's memory from bump regions, and from the heap outside them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/json-alloc.h"

/* A tree big enough to take several blocks of a small region. */
static cJSON *make_tree(int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "i", i);
        cJSON_AddStringToObject(o, "name", "a string long enough to be its own allocation");
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static void test_outside_a_region_is_the_heap(void **state)
{
    (void)state;
    cgs_json_init();
    assert_false(cgs_jbump_active());
    /* valgrind and ASan see these as heap blocks: Delete must free every one of them */
    cJSON *t = make_tree(100);
    assert_int_equal(cJSON_GetArraySize(t), 100);
    cJSON_Delete(t);
}

static void test_region_trees_dropped_whole(void **state)
{
    struct cgs_jbump b;
    (void)state;
    cgs_jbump_begin(&b);
    b.block = 4096; /* many blocks */
    assert_true(cgs_jbump_active());
    for (int round = 0; round < 3; round++) {
        cJSON *t = make_tree(500);
        cJSON *p = cJSON_Parse("{\"a\": [1, 2.5, \"x\"], \"b\": null}");
        assert_non_null(p);
        assert_int_equal(cJSON_GetArraySize(t), 500);
        assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(t, 499), "name")->valuestring,
                            "a string long enough to be its own allocation");
        /* Delete of a region's tree frees nothing (and must not crash) */
        cJSON_Delete(p);
        assert_non_null(b.head);
        cgs_jbump_reset(&b); /* the trees are gone; one block is kept */
        assert_non_null(b.head);
    }
    cgs_jbump_end(&b);
    assert_null(b.head);
    assert_false(cgs_jbump_active());
}

static void test_nested_regions(void **state)
{
    struct cgs_jbump outer, inner;
    cJSON *kept;
    (void)state;
    cgs_jbump_begin(&outer);
    kept = make_tree(10);
    cgs_jbump_begin(&inner);
    {
        cJSON *t = make_tree(10);
        /* a tree of the outer region deleted inside the inner one is the outer's: not freed */
        cJSON_Delete(cJSON_DetachItemFromArray(kept, 0));
        cJSON_Delete(t);
    }
    cgs_jbump_end(&inner);
    assert_true(cgs_jbump_active()); /* the outer region is current again */
    assert_int_equal(cJSON_GetArraySize(kept), 9);
    cgs_jbump_end(&outer);
    assert_false(cgs_jbump_active());
    /* the heap again */
    cJSON_Delete(make_tree(3));
}

/* A region filled on one thread, read and released on another (the loader's pipeline). */
struct handoff {
    struct cgs_jbump region;
    cJSON *tree;
};

static void *fill(void *arg)
{
    struct handoff *h = arg;
    h->region.head = NULL;
    h->region.block = 8192;
    cgs_jbump_enter(&h->region);
    h->tree = make_tree(300);
    cgs_jbump_leave(&h->region);
    return cgs_jbump_active() ? (void *)1 : NULL;
}

static void test_region_handed_between_threads(void **state)
{
    struct handoff h;
    pthread_t t;
    void *r = (void *)1;
    (void)state;
    cgs_json_init();
    assert_int_equal(pthread_create(&t, NULL, fill, &h), 0);
    assert_int_equal(pthread_join(t, &r), 0);
    assert_null(r); /* the filling thread left its region */
    assert_false(cgs_jbump_active());
    assert_int_equal(cJSON_GetArraySize(h.tree), 300);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetArrayItem(h.tree, 299), "i")));
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(h.tree, 299), "i")->valueint, 299);
    cgs_jbump_enter(&h.region); /* drop a piece of it here: the region's, not freed */
    cJSON_Delete(cJSON_DetachItemFromArray(h.tree, 0));
    cgs_jbump_leave(&h.region);
    cgs_jbump_release(&h.region);
    assert_null(h.region.head);
}

static void test_large_allocation_gets_its_own_block(void **state)
{
    struct cgs_jbump b;
    char big[70000];
    (void)state;
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    cgs_jbump_begin(&b);
    b.block = 1024;
    cJSON *s = cJSON_CreateString(big); /* 70 KB in a region of 1 KB blocks */
    assert_int_equal(strlen(s->valuestring), sizeof(big) - 1);
    assert_true(((uintptr_t)s->valuestring & (_Alignof(max_align_t) - 1)) == 0);
    cgs_jbump_end(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outside_a_region_is_the_heap),
        cmocka_unit_test(test_region_trees_dropped_whole),
        cmocka_unit_test(test_nested_regions),
        cmocka_unit_test(test_region_handed_between_threads),
        cmocka_unit_test(test_large_allocation_gets_its_own_block),
    };
    return cmocka_run_group_tests_name("json-alloc", tests, NULL, NULL);
}
