"""``python -m averos_ci``: the same CLI as the ``averos-ci`` console script."""

from averos_ci.cli import main

if __name__ == "__main__":
    main()
