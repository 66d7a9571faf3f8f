#!/bin/sh
# mpirun for the test tier across hosts: the job's ranks go to the network
# namespaces of HCC_NETNS_PREFIX that are up, one per "host" (lit's
# %mpirun, hcrun's HCC_MPIRUN and the runtime tests of test/netns use it).
# HCC_MPIRUN may name this script (hcrun's mpirun): the real one is mpirun.
HCC_MPIRUN=${HCC_NETNS_MPIRUN:-mpirun} exec bash "$(dirname "$0")/../../scripts/netns.sh" mpirun "$@"
