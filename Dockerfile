# averos-ci as a container: `docker run --rm -v "$PWD:/github/workspace" ... github auto`.
# No USER / WORKDIR: GitHub runs container actions as root with the workspace mounted and
# its own working directory (https://docs.github.com/actions/creating-actions/dockerfile-support-for-github-actions).
FROM python:3.11-slim

RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/* \
 # The mounted workspace belongs to another uid; git refuses it unless marked safe.
 && git config --system --add safe.directory '*'

COPY . /opt/averos-ci
RUN python -m pip install --no-cache-dir --disable-pip-version-check /opt/averos-ci

ENTRYPOINT ["averos-ci"]
