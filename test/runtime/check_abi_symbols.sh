#!/bin/sh
# check_abi_symbols.sh CC ABI_H LIBHCRT_SO
# Every __hcrt_* name declared in abi.h (including the __hcrt_omp_<name> of
# HCRT_OMP_API_LIST and the __hcrt_omp_<name>_ of HCRT_OMP_FAPI_LIST) must be exported by the library, or, for a marker the
# program defines (__hcrt_mpi_program), referred to weakly; nothing else
# named __hcrt_* may be.
cc=$1 abi=$2 lib=$3
inc=$(dirname "$(dirname "$abi")")
want=$(mktemp) have=$(mktemp)
trap 'rm -f "$want" "$have"' EXIT
{
    "$cc" -E -P "$abi" | grep -o '__hcrt_[A-Za-z0-9_]*'
    printf '#include "hcrt/abi.h"\n#define X(n) __hcrt_omp_##n\nHCRT_OMP_API_LIST(X)\n' |
        "$cc" -E -P -I"$inc" - | tail -n 3 | grep -o '__hcrt_[A-Za-z0-9_]*'
    printf '#include "hcrt/abi.h"\n#define X(n) __hcrt_omp_##n##_\nHCRT_OMP_FAPI_LIST(X)\n' |
        "$cc" -E -P -I"$inc" - | tail -n 3 | grep -o '__hcrt_[A-Za-z0-9_]*'
} | sort -u >"$want"
{
    nm -D --defined-only "$lib" | awk '{print $3}'
    nm -D --undefined-only "$lib" | awk '$1 == "w" {print $2}'
} | grep '^__hcrt_' | sort -u >"$have"
missing=$(comm -23 "$want" "$have")
extra=$(comm -13 "$want" "$have")
[ -n "$missing" ] && echo "declared in abi.h but not exported: $missing"
[ -n "$extra" ] && echo "exported but not in abi.h: $extra"
echo "$(wc -l <"$want") names in abi.h, $(wc -l <"$have") exported"
[ -z "$missing" ] && [ -z "$extra" ]
