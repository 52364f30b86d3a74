#include "ksnap/tune/backend.h"

namespace ksnap::tune {

Status Backend::read(const DeviceBuffer&, void*, Stream) {
  return make_error(ErrorCode::kUnsupported,
                    "this backend cannot read buffers back (Backend::read), which verification needs");
}

const char* library_version() { return "ksnap-tune 0.1.0"; }

bool DeviceFingerprint::operator==(const DeviceFingerprint& o) const {
  return backend == o.backend && name == o.name && uuid == o.uuid && cc_major == o.cc_major &&
         cc_minor == o.cc_minor && sm_count == o.sm_count && driver_version == o.driver_version &&
         cuda_version == o.cuda_version && library_version == o.library_version;
}

std::string DeviceFingerprint::first_difference(const DeviceFingerprint& o) const {
  if (backend != o.backend) return "backend";
  if (name != o.name) return "device name";
  if (uuid != o.uuid) return "device uuid";
  if (cc_major != o.cc_major || cc_minor != o.cc_minor) return "compute capability";
  if (sm_count != o.sm_count) return "SM count";
  if (driver_version != o.driver_version) return "driver version";
  if (cuda_version != o.cuda_version) return "CUDA version";
  if (library_version != o.library_version) return "library version";
  return "";
}

}  // namespace ksnap::tune
