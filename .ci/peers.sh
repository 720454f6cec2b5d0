#!/usr/bin/env bash
# Installs the test peers (`npm run peers`): the Python virtualenv .ci/.venv with the packages of
# .ci/requirements.txt (pyarrow, pyiceberg, pyfluss, moto), and the Fluss Java client driver of the
# compatibility suite (test/compat/java, built with Maven). Suites that need a peer skip without it,
# unless SLUICE_REQUIRE_PEERS=1. Idempotent: a second run only checks that everything is in place.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.ci/.venv
if [ ! -x "$VENV/bin/python" ]; then
  echo "creating $VENV"
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r .ci/requirements.txt
echo "python test peers: $("$VENV/bin/python" --version) in $VENV"

if ! command -v mvn >/dev/null; then
  echo "Maven (mvn) is not on the PATH: the Java compatibility driver needs it (and a JDK 17)" >&2
  exit 1
fi
(cd test/compat/java && mvn -q -B -DskipTests package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt)
echo "java test peers: test/compat/java/target"
