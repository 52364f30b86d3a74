#include "ksnap/binary/elf.h"

#include <algorithm>
#include <cstring>

namespace ksnap::binary {
namespace {

constexpr uint64_t kHeaderSize = 64;
constexpr uint64_t kSectionHeaderSize = 64;
constexpr uint64_t kSymbolSize = 24;

template <typename T>
bool read_le(std::string_view bytes, uint64_t at, T* out) {
  if (!in_bounds(bytes.size(), at, sizeof(T))) return false;
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    v |= static_cast<T>(static_cast<T>(static_cast<uint8_t>(bytes[at + i])) << (8 * i));
  *out = v;
  return true;
}

/// The NUL-terminated name at `at` inside the table [off, off + size).
bool read_name(std::string_view bytes, uint64_t off, uint64_t size, uint64_t at, std::string* out) {
  if (at >= size) return false;
  std::string_view table = bytes.substr(off, size);
  size_t end = table.find('\0', at);
  if (end == std::string_view::npos) return false;
  *out = std::string(table.substr(at, end - at));
  return true;
}

std::string hex(uint64_t v) {
  static const char* const kDigits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

}  // namespace

bool in_bounds(uint64_t total, uint64_t at, uint64_t size) {
  return at <= total && size <= total - at;
}
bool read_u8(std::string_view b, uint64_t at, uint8_t* out) { return read_le(b, at, out); }
bool read_u16(std::string_view b, uint64_t at, uint16_t* out) { return read_le(b, at, out); }
bool read_u32(std::string_view b, uint64_t at, uint32_t* out) { return read_le(b, at, out); }
bool read_u64(std::string_view b, uint64_t at, uint64_t* out) { return read_le(b, at, out); }

Status Elf::error(uint64_t offset, const std::string& message) const {
  return make_error(ErrorCode::kParseError, message + " (at byte " + hex(offset) + ")",
                    SourceLocation{path_, 0, 0});
}

Expected<Elf> Elf::parse(std::string_view bytes, std::string path) {
  Elf e;
  e.bytes_ = bytes;
  e.path_ = std::move(path);
  if (bytes.size() < 4 || std::memcmp(bytes.data(),
                                      "\x7f"
                                      "ELF",
                                      4) != 0)
    return e.error(0, "not an ELF file");
  if (bytes.size() < kHeaderSize) return e.error(0, "ELF header truncated");
  if (bytes[4] != 2) return e.error(4, "not a 64-bit ELF file");
  if (bytes[5] != 1) return e.error(5, "not a little-endian ELF file");
  e.os_abi_ = static_cast<uint8_t>(bytes[7]);
  e.abi_version_ = static_cast<uint8_t>(bytes[8]);
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  read_u16(bytes, 18, &e.machine_);
  read_u32(bytes, 48, &e.flags_);
  read_u64(bytes, 40, &shoff);
  read_u16(bytes, 58, &shentsize);
  read_u16(bytes, 60, &shnum);
  read_u16(bytes, 62, &shstrndx);
  if (shnum == 0) return e;  // no section table: nothing to read
  if (shentsize != kSectionHeaderSize)
    return e.error(58, "section header size " + std::to_string(shentsize) + ", expected 64");
  if (!in_bounds(bytes.size(), shoff, uint64_t{shnum} * kSectionHeaderSize))
    return e.error(40, "section table (" + std::to_string(shnum) + " entries at " + hex(shoff) +
                           ") runs past the end of the file (" + std::to_string(bytes.size()) +
                           " bytes)");
  e.sections_.resize(shnum);
  std::vector<uint32_t> name_at(shnum);
  for (size_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + i * kSectionHeaderSize;
    Section& s = e.sections_[i];
    read_u32(bytes, at, &name_at[i]);
    read_u32(bytes, at + 4, &s.type);
    read_u64(bytes, at + 8, &s.flags);
    read_u64(bytes, at + 24, &s.offset);
    read_u64(bytes, at + 32, &s.size);
    read_u32(bytes, at + 40, &s.link);
    read_u32(bytes, at + 44, &s.info);
    read_u64(bytes, at + 56, &s.entsize);
    s.index = i;
    if (s.type != kSectionNobits && !in_bounds(bytes.size(), s.offset, s.size))
      return e.error(at + 24, "section " + std::to_string(i) + " (" + hex(s.offset) + ", " +
                                  std::to_string(s.size) + " bytes) runs past the end of the file");
  }
  // Sections with bytes in the file may not overlap each other: a reader
  // would see one byte range as two different things.
  std::vector<const Section*> laid;
  for (const Section& s : e.sections_)
    if (s.type != kSectionNobits && s.size > 0 && s.type != 0) laid.push_back(&s);
  std::sort(laid.begin(), laid.end(),
            [](const Section* a, const Section* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < laid.size(); ++i)
    if (laid[i]->offset < laid[i - 1]->offset + laid[i - 1]->size)
      return e.error(shoff + laid[i]->index * kSectionHeaderSize + 24,
                     "section " + std::to_string(laid[i]->index) + " overlaps section " +
                         std::to_string(laid[i - 1]->index));
  if (shstrndx >= shnum) return e.error(62, "section-name table index out of range");
  const Section& names = e.sections_[shstrndx];
  if (names.type == kSectionNobits) return e.error(62, "section-name table has no bytes");
  for (Section& s : e.sections_) {
    if (!read_name(bytes, names.offset, names.size, name_at[s.index], &s.name))
      return e.error(shoff + s.index * kSectionHeaderSize,
                     "section " + std::to_string(s.index) + " name outside the name table");
  }
  return e;
}

const Section* Elf::find(std::string_view name) const {
  for (const Section& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::string_view Elf::data(const Section& s) const {
  if (s.type == kSectionNobits) return {};
  return bytes_.substr(s.offset, s.size);
}

Expected<std::vector<Symbol>> Elf::symbols() const {
  std::vector<Symbol> out;
  for (const Section& s : sections_) {
    if (s.type != kSectionSymtab) continue;
    if (s.link >= sections_.size())
      return error(s.offset, "symbol table " + s.name + " links to a missing string table");
    const Section& strtab = sections_[s.link];
    if (strtab.type == kSectionNobits)
      return error(s.offset, "string table of " + s.name + " has no bytes");
    for (uint64_t at = 0; at + kSymbolSize <= s.size; at += kSymbolSize) {
      const uint64_t p = s.offset + at;
      Symbol sym;
      uint32_t name = 0;
      read_u32(bytes_, p, &name);
      read_u8(bytes_, p + 4, &sym.info);
      read_u16(bytes_, p + 6, &sym.shndx);
      read_u64(bytes_, p + 8, &sym.value);
      read_u64(bytes_, p + 16, &sym.size);
      if (!read_name(bytes_, strtab.offset, strtab.size, name, &sym.name))
        return error(p, "symbol name outside its string table");
      out.push_back(std::move(sym));
    }
  }
  return out;
}

Expected<std::vector<Note>> Elf::notes(const Section& s) const {
  std::vector<Note> out;
  std::string_view d = data(s);
  auto pad4 = [](uint64_t n) { return (n + 3) & ~uint64_t{3}; };
  uint64_t at = 0;
  while (at < d.size()) {
    uint32_t namesz = 0, descsz = 0, type = 0;
    if (!read_u32(d, at, &namesz) || !read_u32(d, at + 4, &descsz) || !read_u32(d, at + 8, &type))
      return error(s.offset + at, "note header truncated in " + s.name);
    const uint64_t name_at = at + 12;
    const uint64_t desc_at = name_at + pad4(namesz);
    if (!in_bounds(d.size(), name_at, pad4(namesz)) || !in_bounds(d.size(), desc_at, descsz))
      return error(s.offset + at, "note runs past the end of " + s.name);
    Note n;
    n.name = std::string(d.substr(name_at, namesz));
    while (!n.name.empty() && n.name.back() == '\0') n.name.pop_back();
    n.type = type;
    n.desc = d.substr(desc_at, descsz);
    out.push_back(std::move(n));
    at = desc_at + pad4(descsz);
  }
  return out;
}

}  // namespace ksnap::binary
