"""The wheel's `memviz` command: the Rust CLI (memviz-cli) with sys.argv."""

import signal
import sys

from . import _memviz


def main():
    # The CLI runs in Rust without returning to Python (memviz open serves
    # until stopped): Ctrl-C must end the process, not wait for Python.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.exit(_memviz.cli(sys.argv[1:]))


if __name__ == "__main__":
    main()
