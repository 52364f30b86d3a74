// Memory advice for big buffers.
//
// A buffer that is written whole soon after it is made (the normalizer's
// records for a 16 MB IR file: about 120 MB) costs a page fault per 4 KiB
// page on first touch; on the VMs CI runs on a fault costs microseconds.
// Asking the kernel for transparent huge pages on it (2 MiB each) takes the
// faults from tens of thousands to a few dozen:
//
//   std::vector<Rec> recs;
//   recs.reserve(n);
//   advise_huge_pages(recs.data(), recs.capacity() * sizeof(Rec));
//
// Only whole 2 MiB blocks inside the range are advised, and only for ranges
// of 8 MiB or more (small buffers would round to nothing or grow the
// resident set for little gain). Advice, never an error: a kernel without
// transparent huge pages, or with them off, leaves the buffer as it was.
#pragma once

#include <cstddef>

namespace ksnap {

/// Asks for transparent huge pages on the 2 MiB blocks inside
/// [p, p + bytes) when bytes >= kHugeAdviceMin. Returns the bytes advised
/// (0 when none: a small range, or the kernel refused).
size_t advise_huge_pages(const void* p, size_t bytes);

/// The smallest range advise_huge_pages advises.
inline constexpr size_t kHugeAdviceMin = size_t{8} << 20;

}  // namespace ksnap
