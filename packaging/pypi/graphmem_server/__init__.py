"""The graphmem server binary, carried in a wheel for one platform.

The console script ``graphmem`` runs it with the arguments it was given:
``graphmem serve``, ``graphmem version`` and every other command. The
Python client is the separate ``graphmem`` package.
"""

import os
import subprocess
import sys

__all__ = ["binary", "main"]


def binary() -> str:
    """Return the path of the graphmem binary inside this package."""
    name = "graphmem.exe" if sys.platform == "win32" else "graphmem"
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", name)


def main() -> None:
    """Run the binary in place of this process (a child on Windows)."""
    path = binary()
    args = [path, *sys.argv[1:]]
    if sys.platform == "win32":
        sys.exit(subprocess.call(args))
    os.execv(path, args)
