#!/bin/bash
# A launcher that, like mpirun after a cut link, waits for ever once the
# runtime said the job ends after a fault, and ignores SIGTERM: hcrun must
# stop it and exit with the fault status (hcrun.test).
port=${HCRT_FAULT_LAUNCHER##*:}
trap '' TERM
echo "HCRT-FAULT-END 70 0" >/dev/udp/127.0.0.1/"$port"
while :; do sleep 0.2; done
