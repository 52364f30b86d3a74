// A bounds-checked ELF64 little-endian reader for the GPU code objects a
// capture holds (NVIDIA cubin, AMD hsaco). It reads the header, the section
// table, symbols and notes of a byte buffer it does not own; every offset,
// size and count is checked against the buffer before it is used, so hostile
// input gives a Status naming the file and the byte offset, never a crash.
//
//   auto elf = binary::Elf::parse(bytes, "attn_fwd.cubin");
//   if (!elf) return elf.status();
//   const binary::Section* s = elf->find(".nv.info");
//   std::string_view data = elf->data(*s);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/support/status.h"

namespace ksnap::binary {

inline constexpr uint16_t kMachineCuda = 190;    ///< EM_CUDA
inline constexpr uint16_t kMachineAmdgpu = 224;  ///< EM_AMDGPU
inline constexpr uint32_t kSectionNobits = 8;    ///< SHT_NOBITS: no bytes in the file
inline constexpr uint32_t kSectionNote = 7;      ///< SHT_NOTE
inline constexpr uint32_t kSectionSymtab = 2;    ///< SHT_SYMTAB

/// One section header, its name resolved from the section-name table.
struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t entsize = 0;
  size_t index = 0;
};

/// One symbol-table entry, its name resolved from the linked string table.
struct Symbol {
  std::string name;
  uint8_t info = 0;
  uint16_t shndx = 0;
  uint64_t value = 0;
  uint64_t size = 0;
};

/// One ELF note: owner name, type and descriptor bytes (a view into the
/// buffer the Elf was parsed from).
struct Note {
  std::string name;
  uint32_t type = 0;
  std::string_view desc;
};

class Elf {
 public:
  /// Reads the header and the section table of `bytes` (which must outlive
  /// the Elf). Errors: not ELF64 little-endian, header or section table past
  /// the end, a section's bytes past the end, names outside the name table,
  /// more than kMaxSections sections.
  static Expected<Elf> parse(std::string_view bytes, std::string path);

  static constexpr size_t kMaxSections = 65535;

  uint16_t machine() const { return machine_; }
  uint8_t os_abi() const { return os_abi_; }
  uint8_t abi_version() const { return abi_version_; }
  uint32_t flags() const { return flags_; }
  const std::string& path() const { return path_; }
  const std::vector<Section>& sections() const { return sections_; }

  /// The first section named `name`, or null.
  const Section* find(std::string_view name) const;
  /// The section's bytes; empty for SHT_NOBITS (checked in parse()).
  std::string_view data(const Section& s) const;
  /// Every entry of every SHT_SYMTAB section; its string table checked.
  Expected<std::vector<Symbol>> symbols() const;
  /// The notes of one SHT_NOTE section (4-byte aligned name and descriptor).
  Expected<std::vector<Note>> notes(const Section& s) const;

  /// A kParseError naming the file and `offset` (byte offset in the file).
  Status error(uint64_t offset, const std::string& message) const;

 private:
  std::string_view bytes_;
  std::string path_;
  uint16_t machine_ = 0;
  uint8_t os_abi_ = 0;
  uint8_t abi_version_ = 0;
  uint32_t flags_ = 0;
  std::vector<Section> sections_;
};

/// Little-endian reads that fail (return false) past the end of `bytes`.
bool read_u8(std::string_view bytes, uint64_t at, uint8_t* out);
bool read_u16(std::string_view bytes, uint64_t at, uint16_t* out);
bool read_u32(std::string_view bytes, uint64_t at, uint32_t* out);
bool read_u64(std::string_view bytes, uint64_t at, uint64_t* out);
/// True when [at, at + size) lies inside a buffer of `total` bytes (no overflow).
bool in_bounds(uint64_t total, uint64_t at, uint64_t size);

}  // namespace ksnap::binary
