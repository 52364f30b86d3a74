#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ksnap/build/build.h"

namespace ksnap::build {

int stage_rank(const std::string& stage) {
  int i = 0;
  for (const char* s : kKnownStages) {
    if (stage == s) return i;
    ++i;
  }
  return -1;
}

bool Variant::unstable(const std::string& stage) const {
  return std::binary_search(unstable_stages.begin(), unstable_stages.end(), stage);
}

const StageFile* Variant::stage(const std::string& name) const {
  for (const auto& s : stages)
    if (s.stage == name) return &s;
  return nullptr;
}

const StageFile* Variant::binary(const std::string& name) const {
  for (const auto& s : binaries)
    if (s.stage == name) return &s;
  return nullptr;
}

bool looks_binary(const std::string& path) {
  // O_NONBLOCK: a FIFO in place of a stage must not stall the sniff (it is
  // refused when read).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  unsigned char buf[4096];
  ssize_t n;
  do {
    n = ::read(fd, buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n <= 0) return false;
  static const unsigned char kElf[] = {0x7f, 'E', 'L', 'F'};
  static const unsigned char kSpirvLe[] = {0x03, 0x02, 0x23, 0x07};
  static const unsigned char kSpirvBe[] = {0x07, 0x23, 0x02, 0x03};
  if (n >= 4) {
    for (const unsigned char* magic : {kElf, kSpirvLe, kSpirvBe})
      if (std::memcmp(buf, magic, 4) == 0) return true;
  }
  return std::memchr(buf, 0, static_cast<size_t>(n)) != nullptr;
}

void Variant::move_binary_stages() {
  // Only a stage whose format has a binary form: Intel's `.spv` is binary
  // SPIR-V. Binary bytes in a `.ptx` or `.ttgir` are corrupt input, reported
  // when the file is read as text.
  auto binary_first = std::stable_partition(stages.begin(), stages.end(), [](const StageFile& f) {
    return f.stage != "spv" || f.text != nullptr || !looks_binary(f.path);
  });
  binaries.insert(binaries.end(), binary_first, stages.end());
  stages.erase(binary_first, stages.end());
}

Expected<TextBuffer> read_stage(const StageFile& f) {
  if (f.text) {
    if (std::memchr(f.text->data(), 0, f.text->size()) != nullptr) {
      size_t nul = std::string_view(*f.text).find('\0');
      return make_error(ErrorCode::kParseError, "binary data (NUL byte) in a text stage",
                        location_in(*f.text, nul, f.path));
    }
    return TextBuffer(f.path, *f.text);
  }
  return read_text_file(f.path);
}

void share_equal_options(Build* b) {
  std::vector<OptionMap*> maps;
  maps.reserve(b->variants.size());
  for (Variant& v : b->variants) maps.push_back(&v.compile_options);
  OptionMap::share_equal(maps);
}

}  // namespace ksnap::build
