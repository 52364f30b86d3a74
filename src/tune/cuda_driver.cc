// Compiled only where cuda.h exists (KSNAP_HAVE_CUDA_H); see cuda_backend.cc.
#if KSNAP_HAVE_CUDA_H
#include "tune/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

namespace ksnap::tune::detail {

std::string CudaDriver::describe(const char* call, CUresult r) const {
  const char* s = nullptr;
  if (cuGetErrorString) cuGetErrorString(r, &s);
  return std::string(call) + ": CUDA error " + std::to_string(static_cast<int>(r)) +
         (s ? std::string(" (") + s + ")" : "");
}

Status CudaDriver::check(const char* call, CUresult r) const {
  if (r == CUDA_SUCCESS) return Status::ok();
  ErrorCode code = (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_NOT_INITIALIZED ||
                    r == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
                       ? ErrorCode::kUnavailable
                       : ErrorCode::kInternal;
  return make_error(code, describe(call, r));
}

namespace {

using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

Expected<CudaDriver*> load() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return make_error(ErrorCode::kUnavailable,
                      std::string("CUDA driver not available: ") + (dlerror() ?: "dlopen failed"));
  auto get_proc = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!get_proc)
    return make_error(ErrorCode::kUnavailable,
                      "CUDA driver too old: no cuGetProcAddress_v2 (need CUDA 12 or newer)");
  static CudaDriver d;
  bool ok = true;
  std::string missing;
  auto resolve = [&](const char* name, auto& fn) {
    void* p = nullptr;
    CUdriverProcAddressQueryResult q{};
    if (get_proc(name, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS || !p) {
      ok = false;
      missing += std::string(missing.empty() ? "" : ", ") + name;
      return;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
#define KSNAP_CU_RESOLVE(name) resolve(#name, d.name);
  KSNAP_CU_RESOLVE(cuInit)
  KSNAP_CU_RESOLVE(cuDriverGetVersion)
  KSNAP_CU_RESOLVE(cuGetErrorString)
  KSNAP_CU_RESOLVE(cuDeviceGet)
  KSNAP_CU_RESOLVE(cuDeviceGetName)
  KSNAP_CU_RESOLVE(cuDeviceGetUuid)
  KSNAP_CU_RESOLVE(cuDeviceGetAttribute)
  KSNAP_CU_RESOLVE(cuDevicePrimaryCtxRetain)
  KSNAP_CU_RESOLVE(cuCtxSetCurrent)
  KSNAP_CU_RESOLVE(cuCtxGetCurrent)
  KSNAP_CU_RESOLVE(cuModuleLoadData)
  KSNAP_CU_RESOLVE(cuModuleUnload)
  KSNAP_CU_RESOLVE(cuModuleGetFunction)
  KSNAP_CU_RESOLVE(cuFuncGetAttribute)
  KSNAP_CU_RESOLVE(cuFuncSetAttribute)
  KSNAP_CU_RESOLVE(cuFuncSetCacheConfig)
  KSNAP_CU_RESOLVE(cuLaunchKernel)
  KSNAP_CU_RESOLVE(cuLaunchKernelEx)
  KSNAP_CU_RESOLVE(cuMemAlloc)
  KSNAP_CU_RESOLVE(cuMemFree)
  KSNAP_CU_RESOLVE(cuMemcpyHtoD)
  KSNAP_CU_RESOLVE(cuMemcpyDtoH)
  KSNAP_CU_RESOLVE(cuMemcpyDtoD)
  KSNAP_CU_RESOLVE(cuMemsetD8)
  KSNAP_CU_RESOLVE(cuEventCreate)
  KSNAP_CU_RESOLVE(cuEventDestroy)
  KSNAP_CU_RESOLVE(cuEventRecord)
  KSNAP_CU_RESOLVE(cuEventQuery)
  KSNAP_CU_RESOLVE(cuEventSynchronize)
  KSNAP_CU_RESOLVE(cuEventElapsedTime)
  KSNAP_CU_RESOLVE(cuStreamIsCapturing)
  KSNAP_CU_RESOLVE(cuStreamSynchronize)
  KSNAP_CU_RESOLVE(cuStreamCreate)
  KSNAP_CU_RESOLVE(cuStreamDestroy)
  KSNAP_CU_RESOLVE(cuCtxSynchronize)
#undef KSNAP_CU_RESOLVE
  bool have_param_info = true;
  {
    void* p = nullptr;
    CUdriverProcAddressQueryResult q{};
    if (get_proc("cuFuncGetParamInfo", &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &q) ==
            CUDA_SUCCESS && p)
      d.cuFuncGetParamInfo = reinterpret_cast<decltype(d.cuFuncGetParamInfo)>(p);
    else
      have_param_info = false;  // optional: argument counts are then not checked
  }
  (void)have_param_info;
  if (!ok) return make_error(ErrorCode::kUnavailable, "CUDA driver lacks " + missing);
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS)
    return make_error(ErrorCode::kUnavailable, d.describe("cuInit", r));
  return &d;
}

}  // namespace

Expected<const CudaDriver*> cuda_driver() {
  static std::once_flag once;
  static Expected<CudaDriver*> loaded = make_error(ErrorCode::kInternal, "not loaded");
  std::call_once(once, [] { loaded = load(); });
  if (!loaded) return loaded.status();
  return static_cast<const CudaDriver*>(*loaded);
}

}  // namespace ksnap::tune::detail

#endif  // KSNAP_HAVE_CUDA_H
