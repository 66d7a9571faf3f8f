//===- RuntimeCalls.cpp - hcc-calls
//-----------------------------------------===//

#include "RuntimeCalls.h"
#include "Common.h"
#include "FlushExits.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hcc {
namespace {

// __kmpc_<x> with an __hcrt_<x> twin (abi.h). Fork calls are hcc-fork's.
const char *const KmpcNames[] = {"global_thread_num",
                                 "push_num_threads",
                                 "push_proc_bind",
                                 "push_num_teams",
                                 "set_thread_limit",
                                 "serialized_parallel",
                                 "end_serialized_parallel",
                                 "for_static_init_4",
                                 "for_static_init_4u",
                                 "for_static_init_8",
                                 "for_static_init_8u",
                                 "dist_for_static_init_4",
                                 "dist_for_static_init_4u",
                                 "dist_for_static_init_8",
                                 "dist_for_static_init_8u",
                                 "team_static_init_4",
                                 "team_static_init_4u",
                                 "team_static_init_8",
                                 "team_static_init_8u",
                                 "dispatch_init_4",
                                 "dispatch_init_4u",
                                 "dispatch_init_8",
                                 "dispatch_init_8u",
                                 "dispatch_next_4",
                                 "dispatch_next_4u",
                                 "dispatch_next_8",
                                 "dispatch_next_8u",
                                 "dispatch_fini_4",
                                 "dispatch_fini_4u",
                                 "dispatch_fini_8",
                                 "dispatch_fini_8u",
                                 "dispatch_deinit",
                                 "for_static_fini",
                                 "ordered",
                                 "end_ordered",
                                 "reduce",
                                 "reduce_nowait",
                                 "end_reduce",
                                 "end_reduce_nowait",
                                 "barrier",
                                 "cancel_barrier",
                                 "cancel",
                                 "cancellationpoint",
                                 "single",
                                 "end_single",
                                 "copyprivate",
                                 "master",
                                 "end_master",
                                 "masked",
                                 "end_masked",
                                 "critical",
                                 "critical_with_hint",
                                 "end_critical",
                                 "flush",
                                 "omp_task_alloc",
                                 "omp_target_task_alloc",
                                 "omp_task",
                                 "omp_task_with_deps",
                                 "omp_wait_deps",
                                 "omp_taskwait_deps_51",
                                 "omp_task_begin_if0",
                                 "omp_task_complete_if0",
                                 "omp_taskwait",
                                 "omp_taskyield",
                                 "taskgroup",
                                 "end_taskgroup",
                                 "taskloop",
                                 "taskloop_5",
                                 "taskred_init",
                                 "taskred_modifier_init",
                                 "task_reduction_modifier_fini",
                                 "task_reduction_get_th_data",
                                 "threadprivate_cached"};

// __tgt_<x> with an __hcrt_<x> twin. __tgt_target_kernel is hcc-target's:
// it renames only the calls whose kernel it could describe.
const char *const TgtNames[] = {"target_data_begin_mapper",
                                "target_data_end_mapper",
                                "target_data_update_mapper",
                                "target_data_begin_nowait_mapper",
                                "target_data_end_nowait_mapper",
                                "target_data_update_nowait_mapper",
                                "register_requires",
                                "mapper_num_components",
                                "push_mapper_component"};

// The OpenMP API routines of HCRT_OMP_API_LIST (abi.h).
const char *const ApiNames[] = {"get_thread_num",
                                "get_num_threads",
                                "get_max_threads",
                                "set_num_threads",
                                "get_num_procs",
                                "in_parallel",
                                "get_level",
                                "get_active_level",
                                "get_ancestor_thread_num",
                                "get_team_size",
                                "get_thread_limit",
                                "set_dynamic",
                                "get_dynamic",
                                "set_nested",
                                "get_nested",
                                "set_max_active_levels",
                                "get_max_active_levels",
                                "set_schedule",
                                "get_schedule",
                                "get_wtime",
                                "get_wtick",
                                "in_final",
                                "get_cancellation",
                                "get_proc_bind",
                                "get_num_teams",
                                "get_team_num",
                                "pause_resource",
                                "pause_resource_all",
                                "get_num_devices",
                                "get_device_num",
                                "get_default_device",
                                "set_default_device",
                                "is_initial_device",
                                "get_initial_device",
                                "init_lock",
                                "init_lock_with_hint",
                                "destroy_lock",
                                "set_lock",
                                "unset_lock",
                                "test_lock",
                                "init_nest_lock",
                                "init_nest_lock_with_hint",
                                "destroy_nest_lock",
                                "set_nest_lock",
                                "unset_nest_lock",
                                "test_nest_lock",
                                "target_alloc",
                                "target_free",
                                "target_is_present",
                                "target_memcpy",
                                "target_memcpy_rect",
                                "target_associate_ptr",
                                "target_disassociate_ptr",
                                "init_allocator",
                                "destroy_allocator",
                                "alloc",
                                "aligned_alloc",
                                "calloc",
                                "aligned_calloc",
                                "realloc",
                                "free"};

// __kmpc_<x> of the allocate directive and clause: __hcrt_kmpc_<x>, since
// __hcrt_<x> names the user's malloc family (heap.c).
const char *const KmpcAllocNames[] = {"alloc", "aligned_alloc", "calloc",
                                      "realloc", "free"};

// HCRT_OMP_FAPI_LIST (abi.h): libomp's Fortran entry points omp_<x>_,
// called by Fortran code that declares the routines `external`.
const char *const FortranApiNames[] = {"get_thread_num",
                                       "get_num_threads",
                                       "get_max_threads",
                                       "get_num_procs",
                                       "in_parallel",
                                       "get_level",
                                       "get_active_level",
                                       "get_thread_limit",
                                       "get_dynamic",
                                       "get_nested",
                                       "get_max_active_levels",
                                       "in_final",
                                       "get_cancellation",
                                       "get_num_teams",
                                       "get_team_num",
                                       "get_num_devices",
                                       "get_device_num",
                                       "get_default_device",
                                       "is_initial_device",
                                       "get_initial_device",
                                       "set_num_threads",
                                       "set_dynamic",
                                       "set_nested",
                                       "set_max_active_levels",
                                       "set_default_device",
                                       "get_ancestor_thread_num",
                                       "get_team_size",
                                       "init_lock",
                                       "destroy_lock",
                                       "set_lock",
                                       "unset_lock",
                                       "test_lock",
                                       "init_nest_lock",
                                       "destroy_nest_lock",
                                       "set_nest_lock",
                                       "unset_nest_lock",
                                       "test_nest_lock",
                                       "get_proc_bind",
                                       "get_wtime",
                                       "get_wtick",
                                       "set_schedule",
                                       "get_schedule"};

template <size_t N> StringSet<> toSet(const char *const (&Names)[N]) {
  StringSet<> S;
  for (const char *Name : Names)
    S.insert(Name);
  return S;
}

} // namespace

std::string hcrtTwin(StringRef Name) {
  static const StringSet<> Kmpc = toSet(KmpcNames);
  static const StringSet<> Tgt = toSet(TgtNames);
  static const StringSet<> Api = toSet(ApiNames);
  static const StringSet<> KmpcAlloc = toSet(KmpcAllocNames);
  static const StringSet<> FortranApi = toSet(FortranApiNames);
  StringRef Rest = Name;
  if (Rest.consume_front("__kmpc_") && Kmpc.contains(Rest))
    return ("__hcrt_" + Rest).str();
  Rest = Name;
  if (Rest.consume_front("__kmpc_") && KmpcAlloc.contains(Rest))
    return ("__hcrt_kmpc_" + Rest).str();
  Rest = Name;
  if (Rest.consume_front("__tgt_") && Tgt.contains(Rest))
    return ("__hcrt_" + Rest).str();
  Rest = Name;
  if (Rest.consume_front("omp_") && Api.contains(Rest))
    return ("__hcrt_omp_" + Rest).str();
  Rest = Name;
  if (Rest.consume_front("omp_") && Rest.consume_back("_") &&
      FortranApi.contains(Rest))
    return ("__hcrt_omp_" + Rest + "_").str();
  if (isGuardName(Name))
    return ("__hcrt" + Name.drop_front(1)).str(); /* __hcrt_cxa_guard_* */
  return "";
}

// The C++ guards of function-local statics: one protocol for every access
// to a guard, so renamed in head-only code too.
bool isGuardName(StringRef N) {
  return N == "__cxa_guard_acquire" || N == "__cxa_guard_release" ||
         N == "__cxa_guard_abort";
}

// Runtime entry points that need no cluster semantics: they only touch
// thread-local or read-only state, so running them in libomp is correct.
static bool isHarmless(StringRef N) {
  return N == "__kmpc_omp_reg_task_with_affinity" || N == "__kmpc_error" ||
         N == "__tgt_register_lib" || N == "__tgt_unregister_lib" ||
         N == "__tgt_init_all_rtls";
}

bool isUnsupportedCall(StringRef N) {
  if (!N.starts_with("__kmpc_") && !N.starts_with("__tgt_"))
    return false;
  // A region that takes threadprivate copies from libomp runs on the head:
  // the workers' own copies (tprivate.c) start from the initial value and
  // stay on their node, so a thread's values would not follow it when
  // region placement moves it. The twin serves calls outside such regions
  // (a function of another file, called from a region of this one).
  if (N == "__kmpc_threadprivate_cached")
    return true;
  return !isForkName(N) && hcrtTwin(N).empty() && !isHarmless(N);
}

SetVector<Function *> headOnlyFunctions(Module &M) {
  SetVector<Function *> Out;
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || !calleeName(*CB).starts_with("__kmpc_fork") ||
          CB->arg_size() < 3)
        continue;
      auto *Micro =
          dyn_cast<Function>(CB->getArgOperand(2)->stripPointerCasts());
      if (!Micro || Micro->isDeclaration())
        continue;
      SetVector<Function *> Root;
      Root.insert(Micro);
      SetVector<Function *> Closure = calleeClosure(Root);
      if (llvm::any_of(Closure, [](Function *G) {
            for (Instruction &J : instructions(*G))
              if (auto *C = dyn_cast<CallBase>(&J))
                if (isUnsupportedCall(calleeName(*C)))
                  return true;
            return false;
          }))
        Out.insert(Closure.begin(), Closure.end());
    }
  return Out;
}

namespace {

// A num_threads/proc_bind/num_teams push belongs to the next fork of its
// block; when that fork was left to libomp, the push must reach libomp too.
bool pushForLibompFork(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  if (!CB || !calleeName(*CB).starts_with("__kmpc_push_"))
    return false;
  for (const Instruction *N = I.getNextNode(); N; N = N->getNextNode())
    if (auto *Next = dyn_cast<CallBase>(N))
      if (isForkName(calleeName(*Next)))
        return calleeName(*Next).starts_with("__kmpc_");
  return false;
}

// Renames call by call: calls inside head-only regions keep libomp's entry
// points, so such a region runs entirely in libomp, consistently.
bool renameCalls(Module &M, const SetVector<Function *> &HeadOnly) {
  bool Changed = false;
  SmallVector<Function *, 32> Decls;
  for (Function &F : M)
    if (F.isDeclaration() && !F.use_empty() && !hcrtTwin(F.getName()).empty())
      Decls.push_back(&F);
  for (Function *F : Decls) {
    FunctionCallee New = M.getOrInsertFunction(
        hcrtTwin(F->getName()), F->getFunctionType(), F->getAttributes());
    for (Use &U : make_early_inc_range(F->uses())) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (I && !isGuardName(F->getName()) &&
          (HeadOnly.contains(I->getFunction()) || pushForLibompFork(*I)))
        continue;
      U.set(New.getCallee());
      Changed = true;
    }
    if (F->use_empty())
      F->eraseFromParent();
    if (auto *NF = dyn_cast<Function>(New.getCallee()); NF && NF->use_empty())
      NF->eraseFromParent();
  }
  return Changed;
}

// A region left to libomp (it uses a call hcc cannot lower) runs on the
// head with libomp's team, one node's threads, while omp_get_max_threads()
// told the program np x threads: per-thread arrays sized by it kept slots
// no thread wrote (a doacross region summing per-thread partials over
// omp_get_max_threads() slots printed a wrong total at 2 ranks). Before
// such a fork, unless a num_threads push of the program's precedes it,
// __hcrt_libomp_team pushes the cluster team's size (head, level 0).
bool sizeLibompTeams(Module &M) {
  SmallVector<CallBase *, 8> Forks;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        StringRef N = calleeName(*CB);
        if (N == "__kmpc_fork_call" || N == "__kmpc_fork_call_if")
          Forks.push_back(CB);
      }
  if (Forks.empty())
    return false;
  auto *PtrTy = PointerType::getUnqual(M.getContext());
  FunctionCallee Team = M.getOrInsertFunction(
      "__hcrt_libomp_team", Type::getVoidTy(M.getContext()), PtrTy);
  for (CallBase *Fork : Forks) {
    bool Pushed = false;
    for (Instruction *P = Fork->getPrevNode(); P && !Pushed;
         P = P->getPrevNode())
      if (auto *C = dyn_cast<CallBase>(P)) {
        StringRef N = calleeName(*C);
        if (isForkName(N))
          break;
        Pushed = N == "__kmpc_push_num_threads";
      }
    if (!Pushed)
      CallInst::Create(Team, {Fork->getArgOperand(0)}, "", Fork);
  }
  return true;
}

void warnLeftovers(Module &M) {
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        StringRef N = calleeName(*CB);
        if (isUnsupportedCall(N))
          warn(I, "OpenMP runtime call '" + N +
                      "' is not supported across "
                      "nodes; its region runs in libomp on the head node only");
      }
}

// Without -g clang gives every worksharing loop of a module one ident
// (psource ";unknown;unknown;0;0;;"), but libhcrt keys a dynamic loop's
// state by its ident (HetProbe's probe cache, the HCRT_STATS rows): each
// dynamic loop init gets an ident of its own, whose psource names the
// file, the function and the loop's ordinal in it (as the column).
bool distinctLoopIdents(Module &M) {
  bool Changed = false;
  for (Function &F : M) {
    unsigned K = 0;
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || !calleeName(*CB).starts_with("__hcrt_dispatch_init_") ||
          CB->arg_size() == 0)
        continue;
      ++K;
      auto *GV =
          dyn_cast<GlobalVariable>(CB->getArgOperand(0)->stripPointerCasts());
      if (!GV || !GV->hasInitializer() || !GV->isConstant())
        continue;
      auto *CS = dyn_cast<ConstantStruct>(GV->getInitializer());
      if (!identPsource(CS).contains(";unknown;"))
        continue;
      std::string Where = (";" + M.getSourceFileName() + ";" + F.getName() +
                           ";0;" + Twine(K) + ";;")
                              .str();
      auto *Str = new GlobalVariable(
          M, ArrayType::get(Type::getInt8Ty(M.getContext()), Where.size() + 1),
          true, GlobalValue::PrivateLinkage,
          ConstantDataArray::getString(M.getContext(), Where),
          ".hcc.loop.psource");
      Str->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
      SmallVector<Constant *, 5> Ops;
      for (unsigned J = 0; J < 4; ++J)
        Ops.push_back(CS->getOperand(J));
      Ops.push_back(Str);
      auto *NGV = new GlobalVariable(
          M, CS->getType(), true, GlobalValue::PrivateLinkage,
          ConstantStruct::get(CS->getType(), Ops), ".hcc.loop.ident");
      NGV->setAlignment(GV->getAlign());
      CB->setArgOperand(0, NGV);
      Changed = true;
    }
  }
  return Changed;
}

} // namespace

bool lowerRuntimeCalls(Module &M) {
  bool Changed = flushLoopExits(M); /* before the renames: theirs too */
  Changed |= renameCalls(M, headOnlyFunctions(M));
  Changed |= sizeLibompTeams(M);
  Changed |= distinctLoopIdents(M);
  warnLeftovers(M);
  return Changed;
}

PreservedAnalyses RuntimeCallsPass::run(Module &M, ModuleAnalysisManager &) {
  return lowerRuntimeCalls(M) ? PreservedAnalyses::none()
                              : PreservedAnalyses::all();
}

} // namespace hcc
