# bash completion for cgscope: commands, each command's options (from the binary's own help
# tables: `cgscope help --commands`, `cgscope help --options CMD`), presets and the graph's own
# call targets for --split-ops (`cgscope info --targets GRAPH`, read only when asked).
_cgscope() {
    local cur prev cmd graph i
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
    --split-ops)
        graph=
        for ((i = 2; i < COMP_CWORD; i++)); do
            case ${COMP_WORDS[i]} in
            *.json|*.pt2|*.JSON|*.PT2) [ -f "${COMP_WORDS[i]}" ] && graph=${COMP_WORDS[i]} ;;
            esac
        done
        COMPREPLY=($(compgen -W "@vllm @magi @sdpa $([ -n "$graph" ] && cgscope info --targets "$graph" 2>/dev/null)" -- "$cur"))
        return ;;
    --policy) COMPREPLY=($(compgen -W "magi fusion device" -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "dot svg png pdf" -- "$cur")); return ;;
    --collapse) COMPREPLY=($(compgen -W "none pieces module" -- "$cur")); return ;;
    --rankdir) COMPREPLY=($(compgen -W "TB LR BT RL" -- "$cur")); return ;;
    --fail-on) COMPREPLY=($(compgen -W "error warning note" -- "$cur")); return ;;
    --rules) COMPREPLY=($(compgen -W "torch-2.11 torch-2.1" -- "$cur")); return ;;
    -o|--output|--ops|--profile) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(cgscope help --options "$cmd" 2>/dev/null)" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -X '!*.@(json|pt2|JSON|PT2)' -- "$cur") $(compgen -d -- "$cur"))
    fi
}
complete -o filenames -F _cgscope cgscope
