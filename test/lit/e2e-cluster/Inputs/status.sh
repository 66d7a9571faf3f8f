#!/usr/bin/env bash
# status.sh CMD...: runs CMD with stdout and stderr merged into stdout, then
# prints "status N" with its exit status (124: it hung and timeout ended
# it). Lets FileCheck check a job's status and messages together. mpirun
# gets a session directory of its own (parallel lit tests can race on a
# shared one).
TMPDIR=$(mktemp -d /tmp/hcc-mpi.XXXXXX) || exit 2
export TMPDIR
export OMPI_MCA_orte_tmpdir_base="$TMPDIR" # not lit's shared session base
"$@" 2>&1
rc=$?
rm -rf "$TMPDIR"
echo "status $rc"
