"""git credential helper: answers ``get`` with the token read from an inherited pipe.

Run by git (``credential.<server>.helper``) as ``python -I -S <this file>``: no package
import, no site. :class:`averos_ci.statebranch.git_access.CredentialGit` writes the token into a
fresh pipe for each network git command and lets only that command (and what it starts)
inherit the read end, named by ``AVEROS_CI_GIT_CREDENTIAL_FD``. So the token is never in an
environment, on a command line or in a file; the pipe is drained by the first read (one shot).
"""

from __future__ import annotations

import os
import sys

FD_VAR = "AVEROS_CI_GIT_CREDENTIAL_FD"


def main(argv: list[str]) -> int:
    if argv[1:2] != ["get"]:  # store / erase: nothing is kept, nothing to forget
        return 0
    sys.stdin.read()  # git's description of what it needs: the answer is the same
    try:
        fd = int(os.environ[FD_VAR])
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        os.close(fd)
    except (KeyError, ValueError, OSError):
        return 0  # no token for this command: git goes on without one
    token = b"".join(chunks).decode().strip()
    if token and "\n" not in token:
        sys.stdout.write(f"username=x-access-token\npassword={token}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
