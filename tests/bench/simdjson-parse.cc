// Benchmark helper (make bench, tests/bench/ratios.py): simdjson's DOM parse of a JSON file, the
// yardstick of issue 37's loader target. `simdjson-parse FILE N` reads FILE and parses it N
// times, each time as cgscope's loader works (the file read, a fresh parser, the whole
// document built), and prints the best wall time in seconds. simdjson picks its fastest
// kernel for this CPU; the one it picked is printed too.
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: simdjson-parse FILE N\n");
        return 2;
    }
    int n = std::atoi(argv[2]);
    double best = 1e30;
    size_t elements = 0;
    for (int i = 0; i < (n > 0 ? n : 1); i++) {
        auto t0 = std::chrono::steady_clock::now();
        simdjson::padded_string text;
        if (simdjson::padded_string::load(argv[1]).get(text)) {
            std::fprintf(stderr, "simdjson-parse: %s: cannot read\n", argv[1]);
            return 2;
        }
        simdjson::dom::parser parser;
        simdjson::dom::element doc;
        if (auto err = parser.parse(text).get(doc)) {
            std::fprintf(stderr, "simdjson-parse: %s: %s\n", argv[1], simdjson::error_message(err));
            return 2;
        }
        auto t1 = std::chrono::steady_clock::now();
        double s = std::chrono::duration<double>(t1 - t0).count();
        if (s < best)
            best = s;
        elements += doc.is_object();
    }
    std::printf("%.6f %s\n", best, simdjson::get_active_implementation()->name().c_str());
    return elements ? 0 : 1;
}
