! flang-new-19 loads the plugin and lowers a Fortran `parallel do` with a
! reduction: fork, unsigned static loop, reduce, OpenMP API calls, the heap
! behind ALLOCATE, the module descriptor and flang's own `main`.
! REQUIRES: flang
! RUN: %flang -fopenmp -fpass-plugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s
! RUN: %flang -fopenmp -fpass-plugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s

! CHECK-DAG: @__hcrt_regions = private constant [2 x %struct.hcrt_region_desc]
! CHECK-DAG: @llvm.global_ctors = {{.*}}i32 101, ptr @__hcrt_module_ctor
! CHECK-DAG: call void @__hcrt_fork(
! CHECK-DAG: call void @__hcrt_for_static_init_4u(
! CHECK-DAG: load volatile i32, ptr @__hcrt_migrate_pending
! CHECK-DAG: call i32 @__hcrt_reduce(
! CHECK-DAG: call {{.*}}i32 @__hcrt_omp_get_thread_num()
! CHECK-DAG: call {{.*}}i32 @__hcrt_omp_get_num_threads()
! CHECK-DAG: call {{.*}}ptr @__hcrt_malloc(
! CHECK-DAG: define {{.*}}i32 @main(i32 %0, ptr %1, ptr %2)
! CHECK-DAG: call i32 @__hcrt_main(i32 %0, ptr %1, ptr %2, ptr {{.*}}@__hcrt_user_main)
! CHECK-NOT: call {{.*}}@__kmpc_fork_call(
! CHECK-NOT: call {{.*}}@__kmpc_for_static_init

program p
  use omp_lib
  implicit none
  integer :: i, n
  real(8) :: s
  real(8), allocatable :: a(:)
  n = 1000
  allocate(a(n))
  s = 0
  !$omp parallel do reduction(+:s)
  do i = 1, n
    a(i) = i
    s = s + a(i)
  end do
  !$omp end parallel do
  !$omp parallel
  if (omp_get_thread_num() == 0) print *, omp_get_num_threads() > 0
  !$omp end parallel
  print *, s
end program
