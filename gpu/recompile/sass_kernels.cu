// Small CUDA kernels whose SASS (nvdisasm / cuobjdump) ksnap's SASS normalizer
// is tested on: straight-line code, a loop with branches, predication,
// shared memory and a warp shuffle. Built with
//   nvcc -cubin -arch=sm_90 -O3 -o sass_sm90.cubin gpu/recompile/sass_kernels.cu
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float buf[256];
  float acc = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += in[i];
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffff, acc, off);
  if ((threadIdx.x & 31) == 0) buf[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x < 8) {
    float v = buf[threadIdx.x];
    for (int off = 4; off > 0; off >>= 1) v += __shfl_down_sync(0xff, v, off);
    if (threadIdx.x == 0) atomicAdd(out, v);
  }
}

extern "C" __global__ void clamp_scale(float* x, int n, float lo, float hi, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i] * s;
  x[i] = v < lo ? lo : (v > hi ? hi : v);
}
