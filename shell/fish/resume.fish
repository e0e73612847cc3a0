# The `resume` function and its completion for fish (3.1 or newer).
#
#   resume init fish | source        (in ~/.config/fish/config.fish)
#
# `resume QUERY` asks the binary for the command line that resumes the session (written to a temp
# file named by RESUME_EMIT_FILE) and runs it: the harness gets the terminal and your own functions
# named claude, pi, codex, ... run. fish has no subshells, so the line runs in this shell and the
# directory (and cd history) is put back afterwards, also when the harness is interrupted. Every
# other subcommand writes straight to the terminal. Sourcing this twice is harmless and prints
# nothing. $__resume_bin (the binary's absolute path) is set by the header `resume init fish` prints.

function resume --description 'find and resume coding-agent sessions'
    set -l tmpdir /tmp
    set -q TMPDIR[1]; and test -n "$TMPDIR"; and set tmpdir $TMPDIR
    set -l tmp (command mktemp $tmpdir/resume.XXXXXXXX); or return 2
    RESUME_EMIT_FILE=$tmp RESUME_SHELL=fish $__resume_bin $argv
    set -l rc $status
    set -l line (string collect <$tmp)
    command rm -f -- $tmp
    if test $rc -ne 0; or test -z "$line"
        return $rc
    end
    # Put the directory back after the harness; should fish cancel the rest of this function
    # (Ctrl-C), the fish_postexec handler below does it once the command line is over.
    set -g __resume_back $PWD
    set -g __resume_dirprev $dirprev
    set -g __resume_dirnext $dirnext
    eval $line
    set rc $status
    __resume_restore
    return $rc
end

function __resume_restore --on-event fish_postexec
    set -q __resume_back; or return 0
    builtin cd $__resume_back 2>/dev/null
    set -g dirprev $__resume_dirprev
    set -g dirnext $__resume_dirnext
    set -e __resume_back __resume_dirprev __resume_dirnext
end

# Completion: sessions newest first (--keep-order) with descriptions, options, option values.
function __resume_complete
    set -l args (commandline -opc)
    set -e args[1]
    # --dir, --cd and ls take a directory (__resume_dir_opts, in the header)
    if set -q args[1]; and contains -- $args[-1] $__resume_dir_opts; and not string match -q -- '-*' (commandline -ct)
        __fish_complete_directories (commandline -ct)
        return
    end
    set -l cur (commandline -ct)
    # (a line with no value is a message for zsh: fish's pager lists candidates only)
    set -l got (string match -v -r '^\t' -- ($__resume_bin __complete -- $args $cur 2>/dev/null))
    set -l path (string match -qr '^(\.\.?|\.\.?/.*|/.*|~.*)$' -- $cur; and echo 1)
    if set -q got[1]; and test -n "$path"
        # a word that is a path offers that directory's sessions; fish shows only candidates whose
        # value or description holds the word, so the description starts with it
        string replace -r '\t' "\tin $cur · " -- $got
    else if set -q got[1]
        printf '%s\n' $got
    else if test -n "$path"
        # no session there: a word that is a path completes as a directory (`../bl` → `../blog/`)
        __fish_complete_directories $cur
    end
end

complete -c resume -e
complete -c resume -f --keep-order -a '(__resume_complete)'

# Key binding (Alt-R; RESUME_KEY picks another, RESUME_KEY= or RESUME_KEY=none binds none): the
# picker opens and the line that resumes the chosen session is put on the command line, to run
# with Enter (RESUME_KEY_RUN=1: run at once). Built from the stages: `__pick` prints the chosen id
# and `emit` turns it into the line. Esc leaves the command line as it was.
function __resume_widget
    set -l id ($__resume_bin __pick </dev/tty)
    set -l line
    if test -n "$id"
        set line (printf '%s\n' $id | RESUME_SHELL=fish $__resume_bin emit)
    end
    if test -n "$line"
        commandline -r -- $line
        commandline -f repaint
        if test "$RESUME_KEY_RUN" = 1
            commandline -f execute
        end
        return
    end
    commandline -f repaint
end

if status is-interactive
    set -l key '\er'
    set -q RESUME_KEY; and set key $RESUME_KEY
    # The readline/zsh spelling (\er, \C-x\C-r) is taken too: \C- becomes fish's \c. Only
    # escapes and plain characters are accepted, so the value is safe to hand to fish's parser.
    set key (string replace -ra '\\\\C-' '\\\\c' -- $key)
    if test -n "$key"; and test "$key" != none; and string match -qr '^[A-Za-z0-9\\\\\[\]~^-]+$' -- $key
        eval "bind $key __resume_widget"
        eval "bind -M insert $key __resume_widget"
    end
end
