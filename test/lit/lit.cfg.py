# lit configuration shared by every hcc suite (passes, s2s, driver, fortran,
# e2e). Substitutions:
#   %hcc %hcrun %s2s           the tools under test (build tree)
#   %plugin                    HCCPasses.so
#   %opt                       opt-19 with the plugin loaded
#   %clang %clangxx %flang     the plain LLVM 19 compilers (the reference)
#   %mpirun                    mpirun with root/oversubscribe defaults, under
#                              a timeout so a hang fails the test
#   %runtime_inc %runtime_lib  for tests that build against libhcrt directly
import os
import lit.formats
import lit.util

config.name = "hcc"
config.test_format = lit.formats.ShTest(not lit.util.which("bash") is None)
config.suffixes = [".ll", ".c", ".cpp", ".f90", ".F90", ".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hcc_obj_root, "test", "lit")

# --param netns=N: the tier across hosts (test/netns). Every mpirun and
# hcrun of the suite puts its ranks in the network namespaces of
# HCC_NETNS_PREFIX (N of them, up before lit starts), one rank per "host",
# over TCP; the runs go to test/lit-netns (no clash with the one-host runs)
# and tests that only make sense on one host say `UNSUPPORTED: netns`.
netns = lit_config.params.get("netns")
if netns:
    config.hcc_mpirun = os.path.join(config.hcc_src_root, "test/netns/mpirun.sh")
    config.test_exec_root = os.path.join(config.hcc_obj_root, "test", "lit-netns")
    config.available_features.add("netns")

bindir = os.path.join(config.hcc_obj_root, "bin")
libdir = os.path.join(config.hcc_obj_root, "lib")
plugin = os.path.join(libdir, "HCCPasses.so")
tools = config.llvm_tools_dir

config.environment["PATH"] = os.pathsep.join(
    [bindir, tools, config.environment.get("PATH", os.environ.get("PATH", ""))])
# HCRT_DSM_MIGRATE / HCRT_DSM_SHM: the corpus under a DSM mode (docs/dsm.md
# §7: the end-to-end programs with home migration over messages).
for var in ["HOME", "TMPDIR", "OMP_NUM_THREADS", "HCC_NETNS_PREFIX",
            "HCC_NETNS_NET", "E2E_CLUSTER_RANKS", "OFFLOAD_RANKS",
            "HCRT_DSM_MIGRATE", "HCRT_DSM_SHM"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Every rank of these tests runs on this one host, where region placement
# would start every region on the head alone (HCRT_SCHED_PLACE_HEAD_FIRST,
# docs/placement.md): the corpus runs its regions on all nodes first, as
# between hosts, so that the cross-node path stays tested; compare.sh and
# e2e-cluster/placement.c also run the default.
config.environment["HCRT_SCHED_PLACE_HEAD_FIRST"] = "0"
# Open MPI 4.1 creates <tmpdir>/ompi.<host>.<uid> on every mpirun and fails
# ("mkdir ... File exists", orte_init failed) when two runs started at the
# same moment race to create it - lit runs tests in parallel, in one TMPDIR.
# So every lit run gets a session base of its own with that directory made
# up front (lit sets TMPDIR itself after this file ran). It also holds a
# directory: an mpirun that ends removes the files in it and then, when no
# directory is left in it, the directory itself, and a run starting at that
# moment failed the same way (its mkdir saw the directory, its stat right
# after did not: lit-observe failed that way in CI).
import atexit, shutil, socket, tempfile
_ompi_base = tempfile.mkdtemp(prefix="hcc-lit-ompi-")
_ompi_top = os.path.join(_ompi_base, "ompi.%s.%d" % (
    socket.gethostname().split(".")[0], os.getuid()))
os.mkdir(_ompi_top, 0o700)
os.mkdir(os.path.join(_ompi_top, "keep"), 0o700)  # a file would be removed
atexit.register(shutil.rmtree, _ompi_base, True)
config.environment["OMPI_MCA_orte_tmpdir_base"] = _ompi_base
config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
config.environment["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
config.environment["LD_LIBRARY_PATH"] = os.pathsep.join([libdir, config.llvm_lib_dir])
if netns:
    config.environment["HCC_MPIRUN"] = config.hcc_mpirun  # hcrun's mpirun

config.substitutions.append(("%hcrun", os.path.join(bindir, "hcrun")))
config.substitutions.append(
    ("%hcrt_calibrate", os.path.join(bindir, "hcrt-calibrate")))
config.substitutions.append(("%hcc", os.path.join(bindir, "hcc")))
config.substitutions.append(("%s2s", os.path.join(bindir, "hcc-s2s")))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(
    ("%opt", "%s -load-pass-plugin=%s" % (os.path.join(tools, "opt"), plugin)))
config.substitutions.append(("%clangxx", config.hcc_clangxx))
config.substitutions.append(("%clang", config.hcc_clang))
config.substitutions.append(("%flang", config.hcc_flang or "false"))
config.substitutions.append(
    ("%mpirun", "timeout -k 5 300 %s --oversubscribe --bind-to none" % config.hcc_mpirun))
config.substitutions.append(("%runtime_inc", os.path.join(config.hcc_src_root, "include")))
config.substitutions.append(("%runtime_lib", libdir))
config.substitutions.append(("%srcroot", config.hcc_src_root))

if config.hcc_flang:
    config.available_features.add("flang")
# .mlir input needs LLVM 19's mlir-translate (and the tests mlir-opt).
if os.path.exists(os.path.join(tools, "mlir-translate")) and \
        os.path.exists(os.path.join(tools, "mlir-opt")):
    config.available_features.add("mlir")

# %e2e SRC WORKDIR: build SRC with the plain LLVM compiler and with hcc, run
# both at 1/2/3 threads (and hcc under mpirun -np 2), require identical output
# (test/lit/e2e/Inputs/compare.sh; used by the e2e and fortran suites).
config.substitutions.append(("%e2e", "env HCC=%s CLANG=%s CLANGXX=%s FLANG=%s MPIRUN='%s' bash %s" % (
    os.path.join(bindir, "hcc"), config.hcc_clang, config.hcc_clangxx,
    config.hcc_flang or "false",
    "timeout -k 5 300 %s --oversubscribe --bind-to none" % config.hcc_mpirun,
    os.path.join(config.hcc_src_root, "test/lit/e2e/Inputs/compare.sh"))))

# %mpiprog [options] SRC WORKDIR: an MPI+OpenMP program built with mpicc +
# the plain LLVM compiler and with hcc, run alone and at 1/2/4 ranks,
# identical output required (test/lit/e2e-mpi/Inputs/run.sh).
config.substitutions.append(("%mpiprog", "env HCC=%s CLANG=%s FLANG=%s MPIRUN='%s' bash %s" % (
    os.path.join(bindir, "hcc"), config.hcc_clang, config.hcc_flang or "false",
    "timeout -k 5 120 %s --oversubscribe --bind-to none" % config.hcc_mpirun,
    os.path.join(config.hcc_src_root, "test/lit/e2e-mpi/Inputs/run.sh"))))

# %offload SRC WORKDIR: build a target-task program with plain clang and with
# hcc, run hcc's at 1/2/4 ranks (hcrun), require the reference's output
# (test/lit/offload/Inputs/run.sh).
config.substitutions.append(("%offload", "env HCC=%s CLANG=%s HCRUN=%s bash %s" % (
    os.path.join(bindir, "hcc"), config.hcc_clang, os.path.join(bindir, "hcrun"),
    os.path.join(config.hcc_src_root, "test/lit/offload/Inputs/run.sh"))))
