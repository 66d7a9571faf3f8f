! flang-new-19 emits __kmpc_fork_call_if for `parallel ... if(...)`, and an
! atomic load + cmpxchg loop for a real(8) `atomic` update: both are
! lowered (__hcrt_fork_if, __hcrt_atomic_*) at -O0 and -O2.
! REQUIRES: flang
! RUN: %flang -fopenmp -fpass-plugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s
! RUN: %flang -fopenmp -fpass-plugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s

! CHECK-DAG: call void @__hcrt_fork_if(ptr {{.*}}@{{[0-9]+}}, ptr {{.*}}@__hcrt_regions{{.*}}, i32 {{.*}}, ptr {{.*}}%hcrt.args
! CHECK-DAG: call void @__hcrt_fork(
! CHECK-DAG: call {{.*}}i64 @__hcrt_atomic_cas_8(
! CHECK-NOT: call {{.*}}@__kmpc_fork_call
! CHECK-NOT: cmpxchg

program q
  integer :: n, i
  real(8) :: a(1000), s
  integer :: c
  c = 0
  do n = 50, 1000, 950
    !$omp parallel do if(n > 100) reduction(+:c)
    do i = 1, n
      a(i) = i
      c = c + 1
    end do
  end do
  s = 0
  !$omp parallel do
  do i = 1, 1000
    !$omp atomic
    s = s + a(i)
  end do
  print *, c, s
end program
