//===- PluginCompat.h - LLVM version shims for HCCPasses -------*- C++ -*-===//
//
// Every #if on the LLVM version lives here, so the passes themselves are
// written against one API.
//
//===----------------------------------------------------------------------===//
#ifndef HCC_PASSES_PLUGINCOMPAT_H
#define HCC_PASSES_PLUGINCOMPAT_H

#include "llvm/Config/llvm-config.h"

#if LLVM_VERSION_MAJOR >= 22
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif

#if LLVM_VERSION_MAJOR >= 20
#define HCC_OPT_LEVEL_ARG llvm::OptimizationLevel, llvm::ThinOrFullLTOPhase
#else
#define HCC_OPT_LEVEL_ARG llvm::OptimizationLevel
#endif

#endif // HCC_PASSES_PLUGINCOMPAT_H
