# averos-ci as a container: `docker run --rm -v "$PWD:/github/workspace" ... github auto`.
# No USER / WORKDIR: GitHub runs container actions as root with the workspace mounted and
# its own working directory (https://docs.github.com/actions/creating-actions/dockerfile-support-for-github-actions).
# BASE_IMAGE: any Debian-based image with python, pip and apt (the tests build against one
# made locally with debootstrap, see tests/docker/).
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}

# Unpinned on purpose: the distribution's current (security-patched) git.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/* \
 # The mounted workspace belongs to another uid; git refuses it unless marked safe.
 && git config --system --add safe.directory '*'

COPY . /opt/averos-ci
RUN python -m pip install --no-cache-dir --disable-pip-version-check /opt/averos-ci

ENTRYPOINT ["averos-ci"]
