/*
 * The shared fixtures (real graphs from PyTorch 2.11) as the unit tests find
 * them: FIXTURES from the environment, else the path the Makefile compiles
 * in. Header-only: each test is its own binary.
 */
#ifndef CGS_TESTS_FIXTURES_H
#define CGS_TESTS_FIXTURES_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *fixtures_root(void)
{
    const char *env = getenv("FIXTURES");
    return env && *env ? env : FIXTURES_DIR;
}

/*
 * Call fn(path, ud) for every graph JSON under dynamo/, post_grad/ and
 * export/ (the sidecars -- split, layout, signature -- are not graphs), in
 * directory order. Returns how many graphs were visited; 0 when the fixtures
 * are not there.
 */
static inline int fixture_graphs_foreach(void (*fn)(const char *path, void *ud), void *ud)
{
    static const char *const dirs[] = {"dynamo", "post_grad", "export"};
    int count = 0;
    for (size_t k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++) {
        char dir[1024];
        struct dirent *de;
        DIR *dp;
        snprintf(dir, sizeof(dir), "%s/%s", fixtures_root(), dirs[k]);
        if (!(dp = opendir(dir)))
            continue;
        while ((de = readdir(dp))) {
            const char *nm = de->d_name;
            size_t n = strlen(nm);
            char path[2048];
            if (n < 6 || strcmp(nm + n - 5, ".json") || strstr(nm, ".split") ||
                strstr(nm, ".layout") || strstr(nm, ".signature"))
                continue;
            snprintf(path, sizeof(path), "%s/%s", dir, nm);
            fn(path, ud);
            count++;
        }
        closedir(dp);
    }
    return count;
}

#endif
