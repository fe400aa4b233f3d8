# bash completion for cgscope: commands, each command's options and the values each option
# takes, all from the binary's own option tables (`cgscope help --commands`, `--options CMD`,
# `--values CMD OPTION`: what completion offers is what the command accepts); the graph's own
# call targets for --split-ops (`cgscope info --targets GRAPH`, read only when asked); sources
# (graphs, .pt2, TORCH_TRACE logs plain or compressed, events, folders) and, after LOG#, the
# refs of the graphs the log carries (`cgscope graphs LOG --json`).
_cgscope() {
    local cur prev cmd graph i vals log
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$(cgscope help --commands 2>/dev/null) help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}
    if [ "$cmd" = help ]; then
        COMPREPLY=($(compgen -W "$(cgscope help --commands 2>/dev/null)" -- "$cur"))
        return
    fi
    case $prev in
    -o|--output|--ops|--profile|--events|--index|--log|--write|--dir)
        COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --*)
        vals=$(cgscope help --values "$cmd" "$prev" 2>/dev/null)
        if [ "$prev" = --split-ops ]; then
            graph=
            for ((i = 2; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                *.json|*.pt2|*.JSON|*.PT2) [ -f "${COMP_WORDS[i]}" ] && graph=${COMP_WORDS[i]} ;;
                esac
            done
            [ -n "$graph" ] && vals="$vals $(cgscope info --targets "$graph" 2>/dev/null)"
        fi
        if [ -n "$vals" ]; then
            COMPREPLY=($(compgen -W "$vals" -- "$cur"))
            return
        fi ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(cgscope help --options "$cmd" 2>/dev/null)" -- "$cur"))
    elif [[ $cur == *'#'* ]]; then
        # LOG#: the refs of the graphs in the log
        log=${cur%%#*}
        COMPREPLY=($(compgen -W "$(cgscope graphs "$log" --json 2>/dev/null |
            sed -n 's/.*"ref":[[:space:]]*"\([^"]*\)".*/\1/p')" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -X '!*.@(json|pt2|JSON|PT2|log|log.gz|log.xz|log.zst|jsonl|txt|py|cgstrace)' -- "$cur")
                   $(compgen -d -- "$cur"))
    fi
}
shopt -s extglob # the file patterns (bash-completion sets it too)
complete -o filenames -F _cgscope cgscope
