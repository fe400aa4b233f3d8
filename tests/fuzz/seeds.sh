# The seed inputs of each fuzz target (sourced by run.sh, parallel.sh and tests/cli/fuzz-replay.sh):
# seeds TARGET prints the files and folders, one per line.
seeds() {
    case $1 in
    graph) ls samples/*.json tests/bad/*.json tests/data/hop/*.json 2>/dev/null ;;
    symexpr) echo tests/fuzz/seeds/symexpr ;;
    pt2) ls tests/data/pt2/*.pt2 2>/dev/null ;;
    pylit) echo tests/fuzz/seeds/pylit; echo samples/magi_compile_cache.py; ls tests/bad/index/*.py ;;
    dash) ls samples/*.jsonl samples/magi_compile_cache.py samples/graph_break.torch_trace.log; echo tests/fuzz/seeds/dash ;;
    profile) ls samples/profile/report.json tests/bad/report/*.json ;;
    trace) ls samples/profile/*.cgstrace tests/data/prof/*/*.cgstrace tests/bad/trace/*.cgstrace ;;
    unpack) echo tests/fuzz/seeds/unpack ;;
    opdecl) echo tests/fuzz/seeds/opdecl ;;
    cachesim) echo tests/fuzz/seeds/cachesim ;;
    follow) echo tests/fuzz/seeds/follow ;;
    fxtext) echo tests/fuzz/seeds/fxtext; echo tests/data/fxtext/vllm_cache/rank_0_0/backbone/computation_graph.py ;;
    esac
    [ -d "tests/fuzz/regress/$1" ] && echo "tests/fuzz/regress/$1"
}

# seed_corpus DIR TARGET: DIR made and filled with the target's seeds (files, and the files
# of seed folders), for libFuzzer to start from.
seed_corpus() {
    mkdir -p "$1"
    for s in $(seeds "$2"); do
        if [ -d "$s" ]; then cp "$s"/* "$1"/ 2>/dev/null; else cp "$s" "$1"/; fi
    done
}
