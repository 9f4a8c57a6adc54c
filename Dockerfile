# averos-ci as a container: `docker run --rm -v "$PWD:/github/workspace" ... github auto`.
# No USER / WORKDIR: GitHub runs container actions as root with the workspace mounted and
# its own working directory (https://docs.github.com/actions/creating-actions/dockerfile-support-for-github-actions).
# BASE_IMAGE: any Debian-based image with python, pip and apt (the tests build against one
# made locally with debootstrap, see tests/docker/).
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}

# Unpinned on purpose: the distribution's current (security-patched) git and Node.js.
# Node.js + npm (npx) run the angular-schematics adapter; Debian bookworm's nodejs is 18,
# which the Angular 14 CLI supports (the build fails on a base whose Node is older than 14.15).
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends git nodejs npm \
 && rm -rf /var/lib/apt/lists/* \
 && node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 14 || (a === 14 && b >= 15) ? 0 : 1)' \
 && npx --version \
 # The mounted workspace belongs to another uid; git refuses it unless marked safe.
 && git config --system --add safe.directory '*'

# Before the source: on the vfs storage driver (the tests' private dockerd where overlay2 is
# unavailable) even this config-only step copies the whole file tree when it is not cached.
ENTRYPOINT ["averos-ci"]

# The dependencies first, in their own layer: a source change then rebuilds only the two
# layers below. Their list is pyproject.toml's [project] dependencies, read with tomllib (no
# second copy to keep in step); the layer is rebuilt when pyproject.toml changes.
COPY pyproject.toml /opt/averos-ci/pyproject.toml
RUN python -c 'import tomllib; print(*tomllib.load(open("/opt/averos-ci/pyproject.toml", "rb"))["project"]["dependencies"], sep="\n")' > /tmp/requirements.txt \
 && python -m pip install --no-cache-dir --disable-pip-version-check -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt

# `pip check` proves the layer above holds every dependency of the package installed here.
COPY . /opt/averos-ci
RUN python -m pip install --no-cache-dir --disable-pip-version-check --no-deps /opt/averos-ci \
 && python -m pip check
