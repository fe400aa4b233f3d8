/*
 * A plain main for the fuzz targets, so that any compiler (gcc with ASan/UBSan in CI) replays
 * a corpus, and AFL++ can drive them: each argument is a file, or a folder whose files are
 * read, and each is handed to LLVMFuzzerTestOneInput once. Prints how many inputs ran.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static unsigned long runs;

static void one(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long n;
    if (!f) {
        fprintf(stderr, "fuzz driver: cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)(n > 0 ? n : 1));
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fprintf(stderr, "fuzz driver: cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    runs++;
}

static void walk(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    if (stat(path, &st)) {
        fprintf(stderr, "fuzz driver: no such file or folder: %s\n", path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        one(path);
        return;
    }
    if (!(d = opendir(path)))
        return;
    while ((e = readdir(d))) {
        char p[4096];
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
        walk(p);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        walk(argv[i]);
    printf("%lu inputs ran\n", runs);
    return 0;
}
