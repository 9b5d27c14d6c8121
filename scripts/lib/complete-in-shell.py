#!/usr/bin/env python3
"""Types a command line into an interactive shell, presses Tab, and prints what the line became.

    scripts/lib/complete-in-shell.py bash|zsh|fish COMPLETION_FILE 'forecastctl status --format wa'

The shell runs on a pseudo-terminal, without the user's configuration, with only COMPLETION_FILE loaded
(and bash-completion for bash, compinit for zsh): completion as a person gets it, including the
completions that run forecastctl (city ids), which fish and zsh offer only in an interactive session.
Programs are found on PATH.
"""

import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time


def read(fd, seconds, quiet=None):
    """What the terminal shows within SECONDS; with QUIET, until it has shown something and then nothing
    for QUIET seconds (a completion that runs forecastctl takes a moment on a busy machine)."""
    out, end, last = b"", time.time() + seconds, None
    while time.time() < end:
        if quiet is not None and last is not None and time.time() - last > quiet:
            break
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                out += os.read(fd, 65536)
                last = time.time()
            except OSError:
                break
    return out.decode(errors="replace")


def main():
    shell, completion, line = sys.argv[1:4]
    folder = os.path.dirname(os.path.abspath(completion))
    setup = {
        "bash": ". /usr/share/bash-completion/bash_completion; . '%s'; PS1='> '" % completion,
        "zsh": "fpath=('%s' $fpath); autoload -U compinit; compinit -u; PS1='> '" % folder,
        "fish": "source '%s'; set fish_greeting; function fish_prompt; echo '> '; end" % completion,
    }[shell]
    argv = {
        "bash": ["bash", "--norc", "--noprofile", "-i"],
        "zsh": ["zsh", "-f", "-i"],
        "fish": ["fish", "--no-config", "-i", "-C", setup],
    }[shell]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "dumb"
        os.execvp(argv[0], argv)
    # A terminal wide enough that no command line wraps (a wrapped line is redrawn in pieces).
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 1000, 0, 0))
    read(fd, 10, quiet=1)
    if shell != "fish":
        os.write(fd, setup.encode() + b"\r")
        read(fd, 10, quiet=1)
    os.write(fd, line.encode())
    read(fd, 5, quiet=0.5)
    os.write(fd, b"\t")
    screen = line + read(fd, 20, quiet=2)
    os.write(fd, b"\x03exit\r")
    read(fd, 1)
    # A shell still there (one waiting on more input) is ended rather than waited for.
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    # What the line shows after Tab: the screen without escape sequences, its last prompt line.
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|[\x07\x08]", "", screen).replace("\r", "\n")
    shown = [part for part in plain.split("\n") if line.split()[0] in part]
    print(shown[-1].strip() if shown else plain.strip())


if __name__ == "__main__":
    main()
