// Element-wise comparison of two variants' outputs (see verify.h for the
// rule and a worked example).
#include "ksnap/tune/verify.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace ksnap::tune {

Tolerance default_tolerance(ElementType t) {
  switch (t) {
    case ElementType::kF16:
      return {1e-2, 1e-2};
    case ElementType::kBF16:
      return {3e-2, 3e-2};
    case ElementType::kF32:
      return {1e-4, 1e-4};
    case ElementType::kF64:
      return {1e-9, 1e-9};
    default:
      return {0, 0};
  }
}

const char* element_name(ElementType t) {
  switch (t) {
    case ElementType::kF16: return "f16";
    case ElementType::kBF16: return "bf16";
    case ElementType::kF32: return "f32";
    case ElementType::kF64: return "f64";
    case ElementType::kI8: return "i8";
    case ElementType::kI16: return "i16";
    case ElementType::kI32: return "i32";
    case ElementType::kI64: return "i64";
    case ElementType::kBytes: return "bytes";
    case ElementType::kUnspecified: break;
  }
  return "unspecified";
}

size_t element_size(ElementType t) {
  switch (t) {
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kI16:
      return 2;
    case ElementType::kF32:
    case ElementType::kI32:
      return 4;
    case ElementType::kF64:
    case ElementType::kI64:
      return 8;
    case ElementType::kI8:
    case ElementType::kBytes:
      return 1;
    case ElementType::kUnspecified:
      break;
  }
  return 0;
}

Tolerance VerifyOptions::tolerance_for(ElementType t) const {
  auto it = tolerance.find(t);
  return it != tolerance.end() ? it->second : default_tolerance(t);
}

namespace {

// IEEE binary16 to float, subnormals, infinities and NaN included.
float half_to_float(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

float bf16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}


template <typename T>
T bits_as(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

double load(ElementType t, const unsigned char* p) {
  switch (t) {
    case ElementType::kF16: return half_to_float(bits_as<uint16_t>(p));
    case ElementType::kBF16: return bf16_to_float(bits_as<uint16_t>(p));
    case ElementType::kF32: return bits_as<float>(p);
    case ElementType::kF64: return bits_as<double>(p);
    case ElementType::kI8: return bits_as<int8_t>(p);
    case ElementType::kI16: return bits_as<int16_t>(p);
    case ElementType::kI32: return bits_as<int32_t>(p);
    case ElementType::kI64: return static_cast<double>(bits_as<int64_t>(p));
    default: return *p;
  }
}

bool is_float(ElementType t) {
  return t == ElementType::kF16 || t == ElementType::kBF16 || t == ElementType::kF32 ||
         t == ElementType::kF64;
}

bool close(double ref, double got, Tolerance tol) {
  if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got);
  if (std::isinf(ref) || std::isinf(got)) return ref == got;
  return std::fabs(got - ref) <= tol.atol + tol.rtol * std::fabs(ref);
}

}  // namespace

std::string Mismatch::to_string(ElementType t, Tolerance tol) const {
  char buf[256];
  if (is_float(t))
    std::snprintf(buf, sizeof buf,
                  "element %zu of %zu: %.6g where the default gives %.6g (%zu %s; %s "
                  "atol %g rtol %g)",
                  index, elements, actual, expected, count,
                  count == 1 ? "element differs" : "elements differ", element_name(t),
                  tol.atol, tol.rtol);
  else
    std::snprintf(buf, sizeof buf,
                  "element %zu of %zu: %.17g where the default gives %.17g (%zu %s; %s, "
                  "exact)",
                  index, elements, actual, expected, count,
                  count == 1 ? "element differs" : "elements differ", element_name(t));
  return buf;
}

std::optional<Mismatch> compare_outputs(ElementType t, const void* expected, const void* actual,
                                        size_t bytes, Tolerance tol) {
  const size_t size = element_size(t);
  if (size == 0) return std::nullopt;  // unspecified: the caller refuses these
  const auto* e = static_cast<const unsigned char*>(expected);
  const auto* a = static_cast<const unsigned char*>(actual);
  std::optional<Mismatch> m;
  const size_t n = bytes / size;
  auto note = [&](size_t i, double ev, double av) {
    if (!m) {
      m = Mismatch{};
      m->index = i;
      m->expected = ev;
      m->actual = av;
    }
    ++m->count;
  };
  for (size_t i = 0; i < n; ++i) {
    const unsigned char* pe = e + i * size;
    const unsigned char* pa = a + i * size;
    if (std::memcmp(pe, pa, size) == 0) continue;  // equal bits (NaN payloads too)
    double ev = load(t, pe), av = load(t, pa);
    if (!is_float(t) || !close(ev, av, tol)) note(i, ev, av);  // integers: bits differ
  }
  for (size_t b = n * size; b < bytes; ++b)
    if (e[b] != a[b]) note(n, e[b], a[b]);
  if (m) m->elements = n + (bytes % size ? 1 : 0);
  return m;
}

}  // namespace ksnap::tune
