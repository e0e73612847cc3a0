# shellcheck shell=bash
# The `resume` function and its completion for bash.
#
#   eval "$(resume init bash)"       (in ~/.bashrc)
#
# `resume QUERY` asks the binary for the command line that resumes the session (written to a temp
# file named by RESUME_EMIT_FILE) and runs it in a subshell: the harness gets the terminal, your
# own functions and aliases named claude, pi, codex, ... run, and this shell's directory stays.
# Every other subcommand writes straight to the terminal. Sourcing this twice is harmless; it
# prints nothing and sets no shell option. __resume_bin (the binary's absolute path) is set by the
# header `resume init bash` prints above.

# Runs the binary; leaves the line to evaluate in the caller's $__resume_line.
__resume_call() {
  local tmp rc=0
  tmp=$(command mktemp "${TMPDIR:-/tmp}/resume.XXXXXXXX") || return 2
  RESUME_EMIT_FILE=$tmp RESUME_SHELL=bash "$__resume_bin" "$@" || rc=$?
  __resume_line=$(<"$tmp")
  command rm -f -- "$tmp"
  return "$rc"
}

resume() {
  local __resume_line='' __resume_rc=0
  __resume_call "$@" || __resume_rc=$?
  if [[ $__resume_rc -eq 0 && -n $__resume_line ]]; then
    (eval "$__resume_line")
    return
  fi
  return "$__resume_rc"
}

# A word as bash will pass it to the command, in REPLY: COMP_WORDS keep the quotes and backslashes
# typed (`'my app'`, `my\ app`), which the binary would take for part of the word. A quote not
# closed yet (the word being typed) is taken as closed at its end.
__resume_unquoted() {
  local w=$1 c q='' i
  REPLY=''
  for ((i = 0; i < ${#w}; i++)); do
    c=${w:i:1}
    if [[ $q == "'" ]]; then
      [[ $c == "'" ]] && q='' || REPLY+=$c
    elif [[ $c == "\\" && $q == '"' ]]; then
      # in double quotes a backslash escapes only $ ` " \ (and is kept before anything else)
      case ${w:i+1:1} in
        '$' | '`' | '"' | "\\") REPLY+=${w:i+1:1} && ((i++)) ;;
        *) REPLY+=$c ;;
      esac
    elif [[ $c == "\\" ]]; then
      REPLY+=${w:i+1:1} && ((i++))
    elif [[ $c == "$q" ]]; then
      q=''
    elif [[ -z $q && ($c == "'" || $c == '"') ]]; then
      q=$c
    else
      REPLY+=$c
    fi
  done
}

# Completion: one candidate is inserted; several sessions open the picker (`resume __pick`) and
# its choice is inserted; several options or values are listed as usual.
__resume_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev='' row pick w
  local -a args=() vals=() words=()
  ((COMP_CWORD > 1)) && args=("${COMP_WORDS[@]:1:COMP_CWORD-1}") && prev=${COMP_WORDS[COMP_CWORD - 1]}
  # (the words as the binary will see them, for __complete and __pick)
  for w in "${args[@]}" "$cur"; do
    __resume_unquoted "$w"
    words+=("$REPLY")
  done
  COMPREPLY=()
  # an option whose value is a directory, or `ls`'s argument (__resume_dir_opts: the command table's, in the header)
  if ((COMP_CWORD > 1)) && [[ $cur != -* && " ${__resume_dir_opts[*]} " == *" $prev "* ]]; then
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    return 0
  fi
  while IFS= read -r row; do
    # (a line with no value is a message for zsh: bash lists values only)
    [[ -n $row && $row != $'\t'* ]] && vals+=("${row%%$'\t'*}")
  done < <("$__resume_bin" __complete -- "${words[@]}" 2>/dev/null)
  # no session there: a word that is a path completes as a directory (`../bl` → `../blog/`)
  if ((${#vals[@]} == 0)) && [[ $cur == . || $cur == .. || $cur == ./* || $cur == ../* || $cur == /* || $cur == '~'* ]]; then
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    return 0
  fi
  if ((${#vals[@]} <= 1)); then
    COMPREPLY=("${vals[@]}")
    return 0
  fi
  # Options, and the values that follow __resume_value_words (the command table's, in the header:
  # --harness names, init's shells), are not sessions: list them.
  if [[ $cur == -* || $prev == = || " ${__resume_value_words[*]} " == *" $prev "* ]]; then
    COMPREPLY=("${vals[@]}")
    return 0
  fi
  # Several sessions: the picker opens on the line as typed (`__pick --words`: the query's words, and
  # the options that chose the candidates, --demo, --all, a harness or directory filter). fzf draws
  # on the terminal (stderr); a cancel (exit 130) inserts nothing, the word stays as typed.
  pick=$("$__resume_bin" __pick --words -- "${words[@]}")
  [[ -n $pick ]] && COMPREPLY=("$pick")
  # fzf drew over the prompt: ask the terminal for a status report, whose reply (\e[0n) is bound
  # to redraw-current-line below, so readline redraws the line before inserting the choice.
  printf '\e[5n'
  return 0
}

if ((BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4))); then
  complete -o nosort -F __resume_complete resume
else
  complete -F __resume_complete resume
fi
if [[ $- == *i* ]]; then
  bind '"\e[0n": redraw-current-line' 2>/dev/null
fi

# Key binding (Alt-R; RESUME_KEY picks another, RESUME_KEY= or RESUME_KEY=none binds none): the
# picker opens and the line that resumes the chosen session is put on the command line, to run
# with Enter (RESUME_KEY_RUN=1: run at once, and added to the history). Built from the stages:
# `__pick` prints the chosen id and `emit` turns it into the line. Esc leaves the line as it was.
__resume_widget() {
  local id line=''
  id=$("$__resume_bin" __pick </dev/tty)
  [[ -n $id ]] && line=$(printf '%s\n' "$id" | RESUME_SHELL=bash "$__resume_bin" emit)
  [[ -n $line ]] || return 0
  if [[ ${RESUME_KEY_RUN:-} == 1 ]]; then
    history -s -- "$line"
    printf '%s\n' "$line"
    eval "$line"
    return
  fi
  READLINE_LINE=$line
  READLINE_POINT=${#line}
}
if [[ $- == *i* ]]; then
  __resume_key=${RESUME_KEY-'\er'}
  if [[ -n $__resume_key && $__resume_key != none ]]; then
    bind -m emacs-standard -x "\"$__resume_key\": __resume_widget" 2>/dev/null
    bind -m vi-insert -x "\"$__resume_key\": __resume_widget" 2>/dev/null
    bind -m vi-command -x "\"$__resume_key\": __resume_widget" 2>/dev/null
  fi
  unset __resume_key
fi
