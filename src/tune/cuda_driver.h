// Internal: the CUDA driver API, resolved at run time.
//
// libcuda.so.1 is opened with dlopen and every entry point is looked up with
// cuGetProcAddress for the CUDA version of the headers (13.0), so each
// pointer has exactly the ABI its cuda.h prototype declares. cuda.h is
// included for types only; nothing links against libcuda, and on a machine
// without the driver `cuda_driver()` reports kUnavailable.
#pragma once

#include <cuda.h>

#include <string>

#include "ksnap/support/status.h"

namespace ksnap::tune::detail {

struct CudaDriver {
#define KSNAP_CU_FN(name) decltype(&::name) name = nullptr;
  KSNAP_CU_FN(cuInit)
  KSNAP_CU_FN(cuDriverGetVersion)
  KSNAP_CU_FN(cuGetErrorString)
  KSNAP_CU_FN(cuDeviceGet)
  KSNAP_CU_FN(cuDeviceGetName)
  KSNAP_CU_FN(cuDeviceGetUuid)
  KSNAP_CU_FN(cuDeviceGetAttribute)
  KSNAP_CU_FN(cuDevicePrimaryCtxRetain)
  KSNAP_CU_FN(cuCtxSetCurrent)
  KSNAP_CU_FN(cuCtxGetCurrent)
  KSNAP_CU_FN(cuModuleLoadData)
  KSNAP_CU_FN(cuModuleUnload)
  KSNAP_CU_FN(cuModuleGetFunction)
  KSNAP_CU_FN(cuFuncGetAttribute)
  KSNAP_CU_FN(cuFuncSetAttribute)
  KSNAP_CU_FN(cuFuncSetCacheConfig)
  KSNAP_CU_FN(cuFuncGetParamInfo)
  KSNAP_CU_FN(cuLaunchKernel)
  KSNAP_CU_FN(cuLaunchKernelEx)
  KSNAP_CU_FN(cuMemAlloc)
  KSNAP_CU_FN(cuMemFree)
  KSNAP_CU_FN(cuMemcpyHtoD)
  KSNAP_CU_FN(cuMemcpyDtoH)
  KSNAP_CU_FN(cuMemcpyDtoD)
  KSNAP_CU_FN(cuMemsetD8)
  KSNAP_CU_FN(cuEventCreate)
  KSNAP_CU_FN(cuEventDestroy)
  KSNAP_CU_FN(cuEventRecord)
  KSNAP_CU_FN(cuEventQuery)
  KSNAP_CU_FN(cuEventSynchronize)
  KSNAP_CU_FN(cuEventElapsedTime)
  KSNAP_CU_FN(cuStreamIsCapturing)
  KSNAP_CU_FN(cuStreamSynchronize)
  KSNAP_CU_FN(cuStreamCreate)
  KSNAP_CU_FN(cuStreamDestroy)
  KSNAP_CU_FN(cuCtxSynchronize)
#undef KSNAP_CU_FN

  /// "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (invalid argument)".
  std::string describe(const char* call, CUresult r) const;
  /// Ok, or kUnavailable/kInternal naming the call and the CUDA error.
  Status check(const char* call, CUresult r) const;
};

/// The process-wide driver table, loaded on first use (thread-safe).
/// kUnavailable when libcuda.so.1 or cuInit is missing or fails.
Expected<const CudaDriver*> cuda_driver();

}  // namespace ksnap::tune::detail
