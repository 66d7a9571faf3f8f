# hang_dump.sh - sourced by the fault scripts: run a job under a deadline
# and, when it reaches the deadline, append every live process of the job
# (mpirun, its daemons, the ranks) with the stacks of all its threads to
# the job's log, taken BEFORE killing it, so that a hang can be diagnosed.
#
#   . hang_dump.sh
#   run_dumped SECS LOG CMD ARGS... >OUT 2>ERR
#
# Returns the command's status, or 124 when it hit the deadline (as
# timeout(1) does). The dump goes to LOG (often the job's stderr file):
# "==== hang dump ..." then, per process, its command line and its state
# (/proc/PID/stat: T = stopped), then each rank's `thread apply all bt`
# from gdb (the ranks are all stopped with SIGSTOP first, so that none
# reacts to another held by gdb; 60 s per process at most). It is written
# to LOG.dump and appended to LOG once the job's processes are killed.
# Without gdb only the process list and each thread's kernel wait channel
# are written.

hang_dump_tree() { # PID -> PID and all its descendants, one per line
  local todo=$1 p kids
  while [ -n "$todo" ]; do
    set -- $todo
    p=$1; shift; todo="$*"
    echo "$p"
    kids=$(ps -o pid= --ppid "$p" 2>/dev/null | tr '\n' ' ')
    todo="$todo $kids"
    todo=${todo# }
  done
}

hang_dump_skip() { # PID -> true for the launcher's own processes
  case "$(basename "$(readlink "/proc/$1/exe" 2>/dev/null)")" in
  timeout | bash | sh | mpirun | mpiexec | orterun | prterun | prted | orted | hcrun)
    return 0 ;;
  esac
  return 1
}

hang_dump() { # ROOT_PID LOG
  local root=$1 log=$2 p st procs
  procs=$(hang_dump_tree "$root")
  {
    echo "==== hang dump $(date -u '+%H:%M:%S') (load $(cut -d' ' -f1-3 /proc/loadavg)) ===="
    for p in $procs; do
      [ -r "/proc/$p/cmdline" ] || continue
      st=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)
      echo "---- pid $p state $st: $(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-200)"
    done
  } >"$log.dump" 2>&1
  # stop every rank first: a rank's detector would otherwise see the one
  # that gdb holds as stopped and end the job in the middle of the dump
  for p in $procs; do hang_dump_skip "$p" || kill -STOP "$p" 2>/dev/null; done
  for p in $procs; do
    [ -r "/proc/$p/cmdline" ] && ! hang_dump_skip "$p" || continue
    echo "---- pid $p: threads" >>"$log.dump"
    if command -v gdb >/dev/null; then
      # symbols of the runtime, MPI and libc only: reading every library's
      # takes minutes at a load of 40 (3 s instead of 15 on a quiet one)
      timeout -k 5 60 gdb -p "$p" -batch -nx -q -iex 'set auto-solib-add off' \
        -ex 'sharedlibrary libhcrt' -ex 'sharedlibrary libmpi' \
        -ex 'sharedlibrary libc' -ex 'set pagination off' \
        -ex 'thread apply all bt' 2>&1 |
        grep -a '^Thread\|^#' >>"$log.dump"
    else
      for t in /proc/$p/task/*; do
        echo "  tid ${t##*/} $(cat "$t/comm") wchan $(cat "$t/wchan" 2>/dev/null)"
      done >>"$log.dump"
    fi
  done
  echo "==== end of hang dump ====" >>"$log.dump"
}

run_dumped() { # SECS LOG CMD...
  local secs=$1 log=$2 pid end rc
  shift 2
  "$@" &
  pid=$!
  end=$(($(date +%s) + secs))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$(date +%s)" -ge "$end" ]; then
      hang_dump "$pid" "$log"
      local all
      all=$(hang_dump_tree "$pid")
      kill -TERM $all 2>/dev/null
      sleep 5
      kill -KILL $(hang_dump_tree "$pid") $all 2>/dev/null
      wait "$pid" 2>/dev/null
      # after the job: its processes wrote to LOG until they were killed
      cat "$log.dump" >>"$log" && rm -f "$log.dump"
      return 124
    fi
    sleep 0.5
  done
  wait "$pid"
  rc=$?
  return $rc
}
