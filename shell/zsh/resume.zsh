# The `resume` function and its completion for zsh.
#
#   eval "$(resume init zsh)"        (in ~/.zshrc; before or after compinit)
#
# `resume QUERY` asks the binary for the command line that resumes the session (written to a temp
# file named by RESUME_EMIT_FILE) and runs it in a subshell: the harness gets the terminal, your
# own functions and aliases named claude, pi, codex, ... run, and this shell's directory stays.
# Every other subcommand writes straight to the terminal. Sourcing this twice is harmless; it
# prints nothing and changes no option of yours (the helpers run under `emulate -L zsh`).
# __resume_bin (the binary's absolute path) is set by the header `resume init zsh` prints above.

# Runs the binary; leaves the line to evaluate in the caller's $__resume_line.
__resume_call() {
  emulate -L zsh
  local tmp rc=0
  tmp=$(command mktemp "${TMPDIR:-/tmp}/resume.XXXXXXXX") || return 2
  trap "command rm -f -- ${(q)tmp}" EXIT
  RESUME_EMIT_FILE=$tmp RESUME_SHELL=zsh "$__resume_bin" "$@" || rc=$?
  __resume_line=$(<"$tmp")
  return $rc
}

resume() {
  # Not under emulate: the line runs with the user's own options, aliases and functions.
  local __resume_line= __resume_rc=0
  __resume_call "$@" || __resume_rc=$?
  if (( __resume_rc == 0 )) && [[ -n $__resume_line ]]; then
    ( eval "$__resume_line" )
    return
  fi
  return $__resume_rc
}

# Completion: sessions newest first (compadd -V keeps the order), options, option values.
__resume_complete() {
  typeset -g __resume_narrowed=0
  # --dir, --cd and ls take a directory (__resume_dir_opts, in the header): compsys's own function, under compsys's options
  if [[ $PREFIX != -* ]] && (( CURRENT > 2 && ${__resume_dir_opts[(Ie)${words[CURRENT-1]}]} )); then
    _directories
    return
  fi
  __resume_sessions && return 0
  # no session there: a word that is a path completes as a directory (`../bl` → `../blog/`)
  [[ ${(Q)PREFIX} == (.|..|/*|./*|../*|\~*) ]] && _directories
}

# The sessions (or options, values) the word on the line offers; none: 1.
__resume_sessions() {
  emulate -L zsh
  local -a rows vals disp args
  local row cur=${(Q)PREFIX}${(Q)SUFFIX}
  (( CURRENT > 2 )) && args=("${(@Q)words[2,CURRENT-1]}")
  rows=("${(@f)$("$__resume_bin" __complete -- "${args[@]}" "$cur" 2>/dev/null)}")
  rows=("${(@)rows:#}")
  # a line with no value is a message in place of sessions (none matches; what was probably meant)
  if [[ ${rows[1]-} == $'\t'* ]]; then
    _message -r "${rows[1]#$'\t'}"
    return 0
  fi
  (( $#rows )) || return 1
  # each display line: the value padded to the widest (the descriptions' columns line up, as
  # __complete pads them), cut to the terminal's width (zsh wraps a longer one onto the next line)
  local d max=$(( COLUMNS > 20 ? COLUMNS - 1 : 79 )) vw=0 i
  for row in "${rows[@]}"; do
    vals+=("${row%%$'\t'*}")
    (( ${(m)#vals[-1]} > vw )) && vw=${(m)#vals[-1]}
  done
  for (( i = 1; i <= $#rows; i++ )); do
    row=${rows[i]}
    [[ $row == *$'\t'* ]] && row=${row#*$'\t'} || row=
    d="${(mr:vw:: :)vals[i]}${row:+  $row}"
    if (( ${(m)#d} > max )); then
      d=${d[1,max-1]}
      while (( ${(m)#d} > max - 1 )); do d=${d[1,-2]}; done
      d+='…'
    fi
    disp+=("$d")
  done
  # Values that begin with the typed word (id prefixes, options) complete as usual. A text query
  # (`resume dotfiles`) matches sessions by other fields: those replace the word (-U), and several
  # go into menu selection so the query is not replaced by the ids' common prefix.
  local v prefixed=1
  for v in "${vals[@]}"; do
    [[ $v == "$cur"* ]] || { prefixed=0; break; }
  done
  if (( prefixed )); then
    compadd -V resume -l -d disp -- "${vals[@]}"
  else
    compadd -U -V resume -l -d disp -- "${vals[@]}"
    (( $#vals > 1 )) && compstate[insert]=menu
    # (read by fzf-tab's query-string below: these are the sessions the words name already)
    typeset -g __resume_narrowed=1
  fi
  return 0
}

# __resume_compdef registers the completion once compinit has run (at once, or before a prompt).
__resume_compdef() {
  emulate -L zsh
  (( ${+functions[compdef]} )) || return 0
  compdef __resume_complete resume
  add-zsh-hook -d precmd __resume_compdef 2>/dev/null
  return 0
}

# The rest runs under zsh's own options, whatever the user's are.
() {
  emulate -L zsh
  # fzf-tab: keep resume's order (it sorts otherwise), take fzf flags from the binary at TAB time,
  # and preview a session as the picker does. Harmless when fzf-tab is not installed.
  zstyle ':completion:*:resume:*' sort false
  zstyle -e ':fzf-tab:complete:resume:*' fzf-flags 'reply=(${(Q)${(z)"$("$__resume_bin" __fzf-flags tab 2>/dev/null)"}})'
  # Sessions a word names by text or path (`dotfiles`, `~/src/shop`), not by their id's start: fzf
  # starts with an empty query, as they are narrowed already (fzf-tab's own query was the ids' common
  # start, `6` for 64c5ec20 and 65a915c7, or the typed word, which a path's lines do not hold).
  zstyle -e ':fzf-tab:complete:resume:*' query-string \
    '(( __resume_narrowed )) && reply=(none) || reply=(prefix input first)'
  # fzf runs the preview in a new zsh, where only $word (the candidate) is set: the path goes in as is.
  zstyle ':fzf-tab:complete:resume:*' fzf-preview "${(q)__resume_bin} preview -- \"\$word\" 2>/dev/null"
  if (( ${+functions[compdef]} )); then
    compdef __resume_complete resume
  else
    autoload -Uz add-zsh-hook && add-zsh-hook precmd __resume_compdef
  fi
}

# Key binding (Alt-R; RESUME_KEY picks another, RESUME_KEY= or RESUME_KEY=none binds none): the
# picker opens and the line that resumes the chosen session is put on the command line, to run
# with Enter (RESUME_KEY_RUN=1: run at once). Built from the stages: `__pick` prints the chosen
# id and `emit` turns it into the line. Esc leaves the command line as it was.
__resume_widget() {
  emulate -L zsh
  local id line
  id=$("$__resume_bin" __pick </dev/tty)
  if [[ -n $id ]]; then
    line=$(print -r -- "$id" | RESUME_SHELL=zsh "$__resume_bin" emit)
  fi
  if [[ -n $line ]]; then
    if [[ ${RESUME_KEY_RUN:-} == 1 ]]; then
      BUFFER=$line
      zle reset-prompt
      zle accept-line
      return 0
    fi
    BUFFER=$line
    CURSOR=$#BUFFER
  fi
  zle reset-prompt
  return 0
}
() {
  emulate -L zsh
  [[ -o interactive ]] || return 0
  local key=${RESUME_KEY-'\er'}
  [[ -z $key || $key == none ]] && return 0
  zle -N __resume_widget
  bindkey -M emacs "$key" __resume_widget
  bindkey -M viins "$key" __resume_widget
  bindkey -M vicmd "$key" __resume_widget
}
