/* What kind of file an input is (lib/readers/sniff.h). */
#include "lib/readers/sniff.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/readers/file.h"

#define CGS_INPUT_WHAT_(k, what, hint) what,
static const char *const kind_what[CGS_IN_COUNT] = {CGS_INPUT_KINDS(CGS_INPUT_WHAT_)};
#undef CGS_INPUT_WHAT_
#define CGS_INPUT_HINT_(k, what, hint) hint,
static const char *const kind_hint[CGS_IN_COUNT] = {CGS_INPUT_KINDS(CGS_INPUT_HINT_)};
#undef CGS_INPUT_HINT_

const char *cgs_input_kind_what(enum cgs_input_kind k)
{
    return (unsigned)k < CGS_IN_COUNT ? kind_what[k] : kind_what[CGS_IN_UNKNOWN];
}

const char *cgs_input_kind_hint(enum cgs_input_kind k)
{
    return (unsigned)k < CGS_IN_COUNT ? kind_hint[k] : NULL;
}

const char *cgs_input_kind_unpack(enum cgs_input_kind k)
{
    return k == CGS_IN_GZIP ? "gunzip -k FILE"
           : k == CGS_IN_XZ ? "xz -dk FILE"
           : k == CGS_IN_ZSTD ? "zstd -d FILE"
                              : NULL;
}

bool cgs_input_kind_compressed(enum cgs_input_kind k)
{
    return k == CGS_IN_GZIP || k == CGS_IN_XZ || k == CGS_IN_ZSTD;
}

static bool starts(const unsigned char *h, size_t n, const void *magic, size_t m)
{
    return n >= m && !memcmp(h, magic, m);
}

/* head[i..] starts with the word w (ASCII), any case */
static bool word_at(const unsigned char *h, size_t n, size_t i, const char *w)
{
    size_t m = strlen(w);
    if (n - i < m)
        return false;
    for (size_t k = 0; k < m; k++) {
        unsigned char c = h[i + k];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        if (c != (unsigned char)w[k])
            return false;
    }
    return true;
}

size_t cgs_glog_payload_at(const char *s, size_t n)
{
    const char *close;
    if (n < 24 || !s[0] || !strchr("VIWEFD", s[0]) || s[1] < '0' || s[1] > '9' || s[5] != ' ' ||
        s[8] != ':')
        return 0;
    close = memchr(s, ']', n < 512 ? n : 512);
    if (!close || (size_t)(close - s) + 2 >= n || close[1] != ' ')
        return 0;
    return (size_t)(close - s) + 2;
}

/* glog's prefix, then a JSON object */
static bool glog_line(const unsigned char *h, size_t n)
{
    size_t at = cgs_glog_payload_at((const char *)h, n);
    return at && h[at] == '{';
}

static bool key_in(const unsigned char *h, size_t n, const char *key)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl <= n; i++)
        if (!memcmp(h + i, key, kl))
            return true;
    return false;
}

/* a key "k" within the first line (or the head when it has no line end) */
static bool key_in_first_line(const unsigned char *h, size_t n, const char *key)
{
    const unsigned char *nl = memchr(h, '\n', n);
    return key_in(h, nl ? (size_t)(nl - h) : n, key);
}
static enum cgs_input_kind json_kind(const unsigned char *h, size_t n, size_t i)
{
    size_t j = i + 1;
    while (j < n && (h[j] == ' ' || h[j] == '\n' || h[j] == '\r' || h[j] == '\t'))
        j++;
    if (j < n && h[j] == '(')
        return CGS_IN_CACHE_INDEX; /* {(runtime_shape, graph_index, backend): ...} */
    if (key_in(h + i, n - i, "\"cgscope.graph\"") || key_in(h + i, n - i, "\"nodes\""))
        return CGS_IN_GRAPH_JSON;
    if (key_in(h + i, n - i, "\"cgscope-report\""))
        return CGS_IN_PROFILE_REPORT;
    if (key_in_first_line(h + i, n - i, "\"event\""))
        return CGS_IN_EVENTS;
    return CGS_IN_JSON;
}

enum cgs_input_kind cgs_sniff(const void *head, size_t len, const char *name)
{
    const unsigned char *h = head;
    size_t i = 0;
    bool nul = false;

    if (!len)
        return CGS_IN_EMPTY;
    if (starts(h, len, "\x89PNG", 4))
        return CGS_IN_PNG;
    if (starts(h, len, "\xFF\xD8\xFF", 3))
        return CGS_IN_JPEG;
    if (starts(h, len, "GIF8", 4))
        return CGS_IN_GIF;
    if (starts(h, len, "%PDF", 4))
        return CGS_IN_PDF;
    if (starts(h, len, "\x7F" "ELF", 4))
        return CGS_IN_ELF;
    if (starts(h, len, "\x1F\x8B", 2))
        return CGS_IN_GZIP;
    if (starts(h, len, "\xFD" "7zXZ\0", 6))
        return CGS_IN_XZ;
    if (starts(h, len, "\x28\xB5\x2F\xFD", 4))
        return CGS_IN_ZSTD;
    if (starts(h, len, "BZh", 3) && len > 3 && h[3] >= '1' && h[3] <= '9')
        return CGS_IN_BZIP2;
    if (starts(h, len, "PK\x03\x04", 4) || starts(h, len, "PK\x05\x06", 4))
        return CGS_IN_ZIP;
    if (starts(h, len, "CGSTRACE", 8))
        return CGS_IN_CUPTI_TRACE;
    if (len >= 2 && h[0] == 0x80 && h[1] >= 2 && h[1] <= 5)
        return CGS_IN_PICKLE;
    if (cgs_text_is_wide(h, len))
        return CGS_IN_WIDE_TEXT;
    for (size_t k = 0; k < len; k++)
        if (!h[k]) {
            nul = true;
            break;
        }
    if (nul) {
        /* a log whose first block was zero-filled (a crash, a preallocated file): NUL bytes,
           then a TORCH_TRACE line; the reader skips them */
        size_t z = 0;
        while (z < len && !h[z])
            z++;
        if (z < len && !memchr(h + z, 0, len - z) && glog_line(h + z, len - z))
            return CGS_IN_TRACE_LOG;
        return CGS_IN_BINARY;
    }
    if (starts(h, len, "\xEF\xBB\xBF", 3))
        i = 3;
    while (i < len && (h[i] == ' ' || h[i] == '\n' || h[i] == '\r' || h[i] == '\t'))
        i++;
    if (i == len)
        return CGS_IN_TEXT; /* white space only */
    if (glog_line(h + i, len - i))
        return CGS_IN_TRACE_LOG;
    if (h[i] == '{')
        return json_kind(h, len, i);
    if (h[i] == '[')
        return CGS_IN_JSON;
    if (h[i] == '<') {
        if (word_at(h, len, i, "<svg") || key_in(h + i, len - i, "<svg"))
            return CGS_IN_SVG;
        if (word_at(h, len, i, "<!doctype html") || word_at(h, len, i, "<html"))
            return CGS_IN_HTML;
    }
    if (word_at(h, len, i, "# AOT ID:") || key_in(h + i, len - i, "from torch._inductor.runtime") ||
        key_in(h + i, len - i, "async_compile = AsyncCompile()"))
        return CGS_IN_OUTPUT_CODE;
    if (word_at(h, len, i, "digraph") || word_at(h, len, i, "strict digraph") ||
        word_at(h, len, i, "graph "))
        return CGS_IN_DOT;
    if (name && (cgs_path_has_ext(name, ".jsonl")))
        return CGS_IN_EVENTS;
    return CGS_IN_TEXT;
}

enum cgs_input_kind cgs_sniff_path(const char *path)
{
    unsigned char head[CGS_SNIFF_HEAD];
    struct stat st;
    ssize_t n;
    int fd;

    if (stat(path, &st) || !S_ISREG(st.st_mode))
        return CGS_IN_UNKNOWN;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return CGS_IN_UNKNOWN;
    do
        n = read(fd, head, sizeof(head));
    while (n < 0 && errno == EINTR);
    close(fd);
    return n < 0 ? CGS_IN_UNKNOWN : cgs_sniff(head, (size_t)n, path);
}

int cgs_sniff_refuse(struct cgs_diag *d, const char *path, enum cgs_input_kind k,
                     const char *wanted)
{
    const char *hint = cgs_input_kind_hint(k);
    cgs_diag_at(d, path, 0, 0);
    if (k == CGS_IN_EMPTY)
        return cgs_diag_set(d, CGS_E_PARSE, "is empty: expected %s", wanted);
    return cgs_diag_set(d, CGS_E_PARSE, "is %s, not %s%s%s", cgs_input_kind_what(k), wanted,
                        hint ? ": " : "", hint ? hint : "");
}
