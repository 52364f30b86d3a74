#include "ksnap/tune/cuda_backend.h"

#include <cstring>
#include <random>

#include "ksnap/support/hash.h"

#if KSNAP_HAVE_CUDA_H
#include "tune/cuda_driver.h"
#endif

namespace ksnap::tune {

Expected<std::shared_ptr<CudaBackend>> CudaBackend::from_capture(const std::string& capture_dir,
                                                                 const std::string& kernel,
                                                                 GridFn grid, int ordinal) {
  KSNAP_ASSIGN_OR_RETURN(auto variants, load_capture_kernel(capture_dir, kernel, true));
  return create(std::move(variants), std::move(grid), ordinal);
}

#if KSNAP_HAVE_CUDA_H

namespace {

uint64_t variant_identity(const CapturedVariant& v) {
  Hasher h;
  h.update(v.cubin);
  h.update(v.meta.name);
  for (int64_t x : {int64_t{v.meta.num_warps}, int64_t{v.meta.num_ctas}, v.meta.shared,
                    v.meta.global_scratch_size, v.meta.global_scratch_align,
                    v.meta.profile_scratch_size, v.meta.profile_scratch_align,
                    int64_t{v.meta.cluster_dims[0]}, int64_t{v.meta.cluster_dims[1]},
                    int64_t{v.meta.cluster_dims[2]}, int64_t{v.meta.threads_per_warp},
                    int64_t{v.meta.launch_cooperative_grid}, int64_t{v.meta.launch_pdl}})
    h.update_u64(static_cast<uint64_t>(x));
  return h.digest();
}

}  // namespace

using detail::CudaDriver;

struct CudaBackend::Impl {
  const CudaDriver* d = nullptr;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> fns;
  std::vector<size_t> nparams;
  struct Scratch {
    CUdeviceptr base = 0;
    size_t bytes = 0;
  };
  std::mutex scratch_mu;
  std::vector<Scratch> scratch;  // [variant*2 + which]
  std::mutex event_mu;
  std::vector<std::pair<CUevent, CUevent>> free_events;

  // What launch_impl needs per variant, precomputed at load.
  struct Plan {
    CUfunction fn = nullptr;
    unsigned threads = 0, shared = 0;
    unsigned cx = 1, cy = 1, cz = 1;
    bool simple = true;  // plain cuLaunchKernel (no cluster, cooperative or PDL)
    size_t nparams = 0;
  };
  std::vector<Plan> plans;

  // The context is made current once per thread and backend (a thread-local
  // note of the last one set), not per launch: a program that switches this
  // thread to another context behind ksnap's back must call cuCtxSetCurrent
  // again (or use the primary context, which the CUDA runtime shares).
  Status make_current() {
    thread_local const Impl* current_for = nullptr;
    if (current_for == this) return Status::ok();
    Status s = d->check("cuCtxSetCurrent", d->cuCtxSetCurrent(ctx));
    if (s.is_ok()) current_for = this;
    return s;
  }

  // Scratch of at least `bytes` aligned to `align` for variant v, slot which.
  Expected<CUdeviceptr> scratch_for(size_t v, int which, size_t bytes, size_t align) {
    std::lock_guard<std::mutex> lock(scratch_mu);
    Scratch& s = scratch[v * 2 + which];
    size_t need = bytes + (align > 256 ? align : 0);
    if (s.bytes < need) {
      if (s.base) d->cuMemFree(s.base);
      s = {};
      CUdeviceptr p = 0;
      KSNAP_RETURN_IF_ERROR(d->check("cuMemAlloc (scratch)", d->cuMemAlloc(&p, need)));
      s = {p, need};
    }
    CUdeviceptr p = s.base;
    if (align > 256) p = (p + align - 1) / align * align;
    return p;
  }
};

bool cuda_available(std::string* why) {
  auto d = detail::cuda_driver();
  if (!d && why) *why = d.status().message();
  return static_cast<bool>(d);
}

Expected<std::shared_ptr<CudaBackend>> CudaBackend::create(std::vector<CapturedVariant> variants,
                                                           GridFn grid, int ordinal) {
  if (variants.empty()) return make_error(ErrorCode::kInvalidArgument, "no variants to load");
  if (!grid) return make_error(ErrorCode::kInvalidArgument, "a CUDA group needs a grid function");
  KSNAP_ASSIGN_OR_RETURN(const CudaDriver* d, detail::cuda_driver());
  std::shared_ptr<CudaBackend> be(new CudaBackend());
  be->impl_ = std::make_unique<Impl>();
  Impl& m = *be->impl_;
  m.d = d;
  KSNAP_RETURN_IF_ERROR(d->check("cuDeviceGet", d->cuDeviceGet(&m.dev, ordinal)));
  KSNAP_RETURN_IF_ERROR(
      d->check("cuDevicePrimaryCtxRetain", d->cuDevicePrimaryCtxRetain(&m.ctx, m.dev)));
  KSNAP_RETURN_IF_ERROR(m.make_current());
  DeviceFingerprint& fp = be->device_;
  fp.backend = "cuda";
  char name[256] = {};
  d->cuDeviceGetName(name, sizeof name - 1, m.dev);
  fp.name = name;
  CUuuid uuid{};
  d->cuDeviceGetUuid(&uuid, m.dev);
  static const char* hex = "0123456789abcdef";
  fp.uuid = "GPU-";
  for (int i = 0; i < 16; ++i) {
    unsigned char b = static_cast<unsigned char>(uuid.bytes[i]);
    fp.uuid += hex[b >> 4];
    fp.uuid += hex[b & 15];
    if (i == 3 || i == 5 || i == 7 || i == 9) fp.uuid += '-';
  }
  d->cuDeviceGetAttribute(&fp.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, m.dev);
  d->cuDeviceGetAttribute(&fp.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, m.dev);
  d->cuDeviceGetAttribute(&fp.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, m.dev);
  d->cuDriverGetVersion(&fp.driver_version);
  fp.cuda_version = CUDA_VERSION;
  fp.library_version = library_version();
  int optin = 0;
  d->cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, m.dev);
  for (const auto& v : variants) {
    if (v.cubin.empty())
      return make_error(ErrorCode::kInvalidArgument, "variant " + v.label + " has no cubin");
    CUmodule mod = nullptr;
    CUresult r = d->cuModuleLoadData(&mod, v.cubin.data());
    if (r != CUDA_SUCCESS)
      return make_error(ErrorCode::kInternal,
                        d->describe("cuModuleLoadData", r) + " for variant " + v.label +
                            " (built for " + (v.meta.arch.empty() ? "?" : v.meta.arch) + ")");
    m.modules.push_back(mod);
    CUfunction fn = nullptr;
    KSNAP_RETURN_IF_ERROR(
        d->check("cuModuleGetFunction", d->cuModuleGetFunction(&fn, mod, v.meta.name.c_str())));
    m.fns.push_back(fn);
    if (v.meta.shared > 49152 && optin > 49152) {
      int static_shared = 0;
      d->cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
      d->cuFuncSetCacheConfig(fn, CU_FUNC_CACHE_PREFER_SHARED);
      KSNAP_RETURN_IF_ERROR(d->check(
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
          d->cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                optin - static_shared)));
    }
    if (v.meta.shared > optin && optin > 0)
      return make_error(ErrorCode::kUnsupported, "variant " + v.label + " needs " +
                                                     std::to_string(v.meta.shared) +
                                                     " bytes of shared memory, the device has " +
                                                     std::to_string(optin));
    size_t count = 0;
    if (d->cuFuncGetParamInfo) {
      size_t off = 0, size = 0;
      while (count < 256 && d->cuFuncGetParamInfo(fn, count, &off, &size) == CUDA_SUCCESS) ++count;
    }
    m.nparams.push_back(count);
    Impl::Plan plan;
    plan.fn = fn;
    plan.threads = static_cast<unsigned>(v.meta.num_warps * v.meta.threads_per_warp);
    plan.shared = static_cast<unsigned>(v.meta.shared);
    plan.cx = static_cast<unsigned>(std::max(1, v.meta.cluster_dims[0]));
    plan.cy = static_cast<unsigned>(std::max(1, v.meta.cluster_dims[1]));
    plan.cz = static_cast<unsigned>(std::max(1, v.meta.cluster_dims[2]));
    if (plan.cx * plan.cy * plan.cz == 1 && v.meta.num_ctas > 1)
      plan.cx = static_cast<unsigned>(v.meta.num_ctas);
    plan.simple = plan.cx * plan.cy * plan.cz == 1 && !v.meta.launch_cooperative_grid &&
                  !v.meta.launch_pdl;
    plan.nparams = count;
    m.plans.push_back(plan);
    be->hashes_.push_back(variant_identity(v));
  }
  m.scratch.resize(variants.size() * 2);
  be->variants_ = std::move(variants);
  be->grid_ = std::move(grid);
  return be;
}

CudaBackend::~CudaBackend() {
  if (!impl_) return;
  Impl& m = *impl_;
  if (m.make_current().is_ok()) {
    for (auto& s : m.scratch)
      if (s.base) m.d->cuMemFree(s.base);
    for (auto& [a, b] : m.free_events) {
      m.d->cuEventDestroy(a);
      m.d->cuEventDestroy(b);
    }
    for (CUmodule mod : m.modules) m.d->cuModuleUnload(mod);
  }
}

void* CudaBackend::function(size_t v) const { return impl_->fns[v]; }
size_t CudaBackend::param_count(size_t v) const { return impl_->nparams[v]; }

Status CudaBackend::launch_impl(size_t v, const Workload& w, const ArgPack& args, Stream s) {
  Impl& m = *impl_;
  const Impl::Plan& plan = m.plans[v];
  if (plan.nparams && args.size() + 2 != plan.nparams)
    return make_error(ErrorCode::kInvalidArgument,
                      "variant " + variants_[v].label + " takes " + std::to_string(plan.nparams - 2) +
                          " arguments (plus 2 hidden scratch pointers), got " +
                          std::to_string(args.size()));
  KSNAP_RETURN_IF_ERROR(m.make_current());
  Dim3 g = grid_(w, variants_[v]);
  if (g.x == 0 || g.y == 0 || g.z == 0) return Status::ok();  // empty problem: nothing to run
  const TritonLaunchMeta& meta = variants_[v].meta;
  const unsigned cx = plan.cx, cy = plan.cy, cz = plan.cz;
  CUdeviceptr gscratch = 0, pscratch = 0;
  if (meta.global_scratch_size > 0 || meta.profile_scratch_size > 0) {
    // Checked: a huge grid times a capture's scratch size must not wrap to
    // a small buffer the kernel then overruns.
    size_t ctas = 1, gbytes = 0, pbytes = 0;
    bool overflow = false;
    for (size_t f : {size_t{g.x}, size_t{g.y}, size_t{g.z}, size_t{cx}, size_t{cy}, size_t{cz}})
      overflow |= __builtin_mul_overflow(ctas, f, &ctas);
    overflow |= __builtin_mul_overflow(ctas, static_cast<size_t>(meta.global_scratch_size), &gbytes);
    overflow |= __builtin_mul_overflow(ctas, static_cast<size_t>(meta.profile_scratch_size), &pbytes);
    if (overflow)
      return make_error(ErrorCode::kInvalidArgument,
                        "scratch memory for a grid of " + std::to_string(g.x) + "x" +
                            std::to_string(g.y) + "x" + std::to_string(g.z) +
                            " blocks overflows 64 bits");
    if (meta.global_scratch_size > 0) {
      KSNAP_ASSIGN_OR_RETURN(gscratch,
                             m.scratch_for(v, 0, gbytes, meta.global_scratch_align));
    }
    if (meta.profile_scratch_size > 0) {
      KSNAP_ASSIGN_OR_RETURN(pscratch,
                             m.scratch_for(v, 1, pbytes, meta.profile_scratch_align));
    }
  }
  void* params[ArgPack::kMaxArgs + 2];
  const size_t n = args.size();
  for (size_t i = 0; i < n; ++i) params[i] = args.slot(i);
  params[n] = &gscratch;
  params[n + 1] = &pscratch;
  const unsigned threads = plan.threads;
  const unsigned shared = plan.shared;
  CUstream stream = static_cast<CUstream>(s);
  CUresult r;
  if (plan.simple) {
    r = m.d->cuLaunchKernel(plan.fn, g.x, g.y, g.z, threads, 1, 1, shared, stream, params, nullptr);
  } else {
    CUlaunchAttribute attrs[3] = {};
    unsigned na = 0;
    if (cx * cy * cz > 1) {
      attrs[na].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[na].value.clusterDim.x = cx;
      attrs[na].value.clusterDim.y = cy;
      attrs[na].value.clusterDim.z = cz;
      ++na;
    }
    if (meta.launch_cooperative_grid) {
      attrs[na].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attrs[na].value.cooperative = 1;
      ++na;
    }
    if (meta.launch_pdl) {
      attrs[na].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[na].value.programmaticStreamSerializationAllowed = 1;
      ++na;
    }
    CUlaunchConfig cfg = {};
    cfg.gridDimX = g.x * cx;
    cfg.gridDimY = g.y * cy;
    cfg.gridDimZ = g.z * cz;
    cfg.blockDimX = threads;
    cfg.blockDimY = 1;
    cfg.blockDimZ = 1;
    cfg.sharedMemBytes = shared;
    cfg.hStream = stream;
    cfg.attrs = attrs;
    cfg.numAttrs = na;
    r = m.d->cuLaunchKernelEx(&cfg, plan.fn, params, nullptr);
  }
  if (r != CUDA_SUCCESS)
    return make_error(ErrorCode::kInternal,
                      m.d->describe("cuLaunchKernel", r) + " for variant " + variants_[v].label);
  return Status::ok();
}

Status CudaBackend::launch(size_t v, const Workload& w, const ArgPack& args, Stream s) {
  if (v >= variants_.size()) return make_error(ErrorCode::kInvalidArgument, "no such variant");
  return launch_impl(v, w, args, s);
}

Expected<Ticket> CudaBackend::launch_timed(size_t v, const Workload& w, const ArgPack& args,
                                           Stream s) {
  Impl& m = *impl_;
  if (v >= variants_.size()) return make_error(ErrorCode::kInvalidArgument, "no such variant");
  KSNAP_RETURN_IF_ERROR(m.make_current());
  std::pair<CUevent, CUevent> ev{nullptr, nullptr};
  {
    std::lock_guard<std::mutex> lock(m.event_mu);
    if (!m.free_events.empty()) {
      ev = m.free_events.back();
      m.free_events.pop_back();
    }
  }
  if (!ev.first) {
    KSNAP_RETURN_IF_ERROR(m.d->check("cuEventCreate", m.d->cuEventCreate(&ev.first, CU_EVENT_DEFAULT)));
    KSNAP_RETURN_IF_ERROR(m.d->check("cuEventCreate", m.d->cuEventCreate(&ev.second, CU_EVENT_DEFAULT)));
  }
  Ticket t;
  t.start = ev.first;
  t.stop = ev.second;
  CUstream stream = static_cast<CUstream>(s);
  Status st = m.d->check("cuEventRecord", m.d->cuEventRecord(ev.first, stream));
  if (st.is_ok()) st = launch_impl(v, w, args, s);
  if (st.is_ok()) st = m.d->check("cuEventRecord", m.d->cuEventRecord(ev.second, stream));
  if (!st.is_ok()) {
    release(t);
    return st;
  }
  return t;
}

void CudaBackend::release(Ticket& t) {
  if (!t.start) return;
  std::lock_guard<std::mutex> lock(impl_->event_mu);
  impl_->free_events.push_back({static_cast<CUevent>(t.start), static_cast<CUevent>(t.stop)});
  t.start = t.stop = nullptr;
}

Poll CudaBackend::poll(Ticket& t) {
  Impl& m = *impl_;
  if (!t.start) return {PollState::kFailed, 0};
  CUresult q = m.d->cuEventQuery(static_cast<CUevent>(t.stop));
  if (q == CUDA_ERROR_NOT_READY) return {PollState::kPending, 0};
  float ms = 0;
  CUresult r = q == CUDA_SUCCESS ? m.d->cuEventElapsedTime(&ms, static_cast<CUevent>(t.start),
                                                           static_cast<CUevent>(t.stop))
                                 : q;
  release(t);
  if (r != CUDA_SUCCESS) return {PollState::kFailed, 0};
  return {PollState::kDone, 1000.0 * ms};
}

Expected<double> CudaBackend::wait(Ticket& t) {
  Impl& m = *impl_;
  if (!t.start) return make_error(ErrorCode::kInvalidArgument, "ticket already released");
  Status st = m.d->check("cuEventSynchronize", m.d->cuEventSynchronize(static_cast<CUevent>(t.stop)));
  float ms = 0;
  if (st.is_ok())
    st = m.d->check("cuEventElapsedTime",
                    m.d->cuEventElapsedTime(&ms, static_cast<CUevent>(t.start),
                                            static_cast<CUevent>(t.stop)));
  release(t);
  if (!st.is_ok()) return st;
  return 1000.0 * ms;
}

bool CudaBackend::capturing(Stream s) {
  CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
  if (impl_->d->cuStreamIsCapturing(static_cast<CUstream>(s), &cs) != CUDA_SUCCESS) return true;
  return cs != CU_STREAM_CAPTURE_STATUS_NONE;  // unsure counts as capturing: never time
}

Expected<DeviceBuffer> CudaBackend::alloc(size_t bytes) {
  Impl& m = *impl_;
  KSNAP_RETURN_IF_ERROR(m.make_current());
  CUdeviceptr p = 0;
  KSNAP_RETURN_IF_ERROR(m.d->check("cuMemAlloc", m.d->cuMemAlloc(&p, bytes ? bytes : 1)));
  return DeviceBuffer{static_cast<uint64_t>(p), bytes};
}

void CudaBackend::free(DeviceBuffer& b) {
  if (b.address && impl_->make_current().is_ok()) impl_->d->cuMemFree(b.address);
  b = {};
}

Status CudaBackend::fill(DeviceBuffer& b, Fill fill, uint64_t seed) {
  Impl& m = *impl_;
  KSNAP_RETURN_IF_ERROR(m.make_current());
  if (fill == Fill::kZero) return m.d->check("cuMemsetD8", m.d->cuMemsetD8(b.address, 0, b.bytes));
  std::vector<unsigned char> host(b.bytes);
  std::mt19937_64 rng(seed);
  if (fill == Fill::kF32) {
    std::uniform_real_distribution<float> u(-1, 1);
    for (size_t i = 0; i + 4 <= host.size(); i += 4) {
      float f = u(rng);
      std::memcpy(&host[i], &f, 4);
    }
  } else {
    for (auto& c : host) c = static_cast<unsigned char>(rng());
    if (fill == Fill::kF16)  // sign, exponent <= 15: finite values in (-2, 2)
      for (size_t i = 1; i < host.size(); i += 2) host[i] &= 0xBF;
  }
  return m.d->check("cuMemcpyHtoD", m.d->cuMemcpyHtoD(b.address, host.data(), host.size()));
}

Status CudaBackend::copy(DeviceBuffer& dst, const DeviceBuffer& src) {
  Impl& m = *impl_;
  if (dst.bytes < src.bytes) return make_error(ErrorCode::kInvalidArgument, "copy: dst too small");
  KSNAP_RETURN_IF_ERROR(m.make_current());
  return m.d->check("cuMemcpyDtoD", m.d->cuMemcpyDtoD(dst.address, src.address, src.bytes));
}

Status CudaBackend::synchronize(Stream s) {
  Impl& m = *impl_;
  KSNAP_RETURN_IF_ERROR(m.make_current());
  return m.d->check("cuStreamSynchronize", m.d->cuStreamSynchronize(static_cast<CUstream>(s)));
}

Status CudaBackend::read(const DeviceBuffer& src, void* host, Stream s) {
  KSNAP_RETURN_IF_ERROR(synchronize(s));
  return download(host, src.address, src.bytes);
}

Status CudaBackend::download(void* host, uint64_t device_address, size_t bytes) {
  KSNAP_RETURN_IF_ERROR(impl_->make_current());
  return impl_->d->check("cuMemcpyDtoH", impl_->d->cuMemcpyDtoH(host, device_address, bytes));
}

Status CudaBackend::upload(uint64_t device_address, const void* host, size_t bytes) {
  KSNAP_RETURN_IF_ERROR(impl_->make_current());
  return impl_->d->check("cuMemcpyHtoD", impl_->d->cuMemcpyHtoD(device_address, host, bytes));
}

#else  // !KSNAP_HAVE_CUDA_H: built without cuda.h, the backend is never available.

struct CudaBackend::Impl {};

namespace {
Status no_cuda() {
  return make_error(ErrorCode::kUnavailable, "ksnap was built without cuda.h: no CUDA backend");
}
}  // namespace

bool cuda_available(std::string* why) {
  if (why) *why = no_cuda().message();
  return false;
}
Expected<std::shared_ptr<CudaBackend>> CudaBackend::create(std::vector<CapturedVariant>, GridFn,
                                                           int) {
  return no_cuda();
}
CudaBackend::~CudaBackend() = default;
void* CudaBackend::function(size_t) const { return nullptr; }
size_t CudaBackend::param_count(size_t) const { return 0; }
Status CudaBackend::launch_impl(size_t, const Workload&, const ArgPack&, Stream) { return no_cuda(); }
Status CudaBackend::launch(size_t, const Workload&, const ArgPack&, Stream) { return no_cuda(); }
Expected<Ticket> CudaBackend::launch_timed(size_t, const Workload&, const ArgPack&, Stream) {
  return no_cuda();
}
void CudaBackend::release(Ticket&) {}
Poll CudaBackend::poll(Ticket&) { return {PollState::kFailed, 0}; }
Expected<double> CudaBackend::wait(Ticket&) { return no_cuda(); }
bool CudaBackend::capturing(Stream) { return true; }
Expected<DeviceBuffer> CudaBackend::alloc(size_t) { return no_cuda(); }
void CudaBackend::free(DeviceBuffer&) {}
Status CudaBackend::fill(DeviceBuffer&, Fill, uint64_t) { return no_cuda(); }
Status CudaBackend::copy(DeviceBuffer&, const DeviceBuffer&) { return no_cuda(); }
Status CudaBackend::synchronize(Stream) { return no_cuda(); }
Status CudaBackend::read(const DeviceBuffer&, void*, Stream) { return no_cuda(); }
Status CudaBackend::download(void*, uint64_t, size_t) { return no_cuda(); }
Status CudaBackend::upload(uint64_t, const void*, size_t) { return no_cuda(); }

#endif

}  // namespace ksnap::tune
