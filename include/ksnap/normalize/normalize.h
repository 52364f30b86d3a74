// ksnap normalization: the canonical form of one IR file.
//
// Worked example (TTGIR). Two builds print
//   BASE: %offsets_1 = arith.addi %offsets_0, %offsets : tensor<256xi32, #blocked> loc(#loc22)
//   HEAD: %offs_1    = arith.addi %offs_0, %offs       : tensor<256xi32, #blocked2> loc(#loc9)
// where HEAD's #blocked2 has the same definition as BASE's #blocked. Both
// normalize to one Line with
//   shape   "%_ = arith.addi %_ , %_ : tensor < 256xi32 , #alias >"
//   display "%offsets_1 = arith.addi %offsets_0, %offsets : tensor<256xi32, #blocked>"
//   symbols [def value, use value, use value, use alias]
// and the module hashes are equal: a value is the definition that made it
// (a use names the definition visible there), numbered by first occurrence
// in its function; an alias is its definition. No printed name counts.
//
// What each rule removes is in NormalizeOptions. Every rule is on by default
// and can be turned off; a rule that is off leaves its text in `shape`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ksnap/ir/lexer.h"
#include "ksnap/support/file.h"
#include "ksnap/support/status.h"
#include "ksnap/support/text_arena.h"

namespace ksnap::norm {

/// The version of the normalized hash: which texts hash equal, and to what.
/// Hashes are kept across runs (the history store's index of normalized
/// hashes, docs/history-store.md), and a kept hash is used only when it was
/// computed by the same version with default options. Raise it with every
/// change that changes any normalized hash; tests/normalize/hash_version_test.cc
/// holds the hashes of real IR files under this version and fails until it is
/// raised (and the hashes updated) when they change.
inline constexpr int kHashVersion = 1;

struct NormalizeOptions {
  bool rename_values = true;    ///< SSA values, block args, LLVM locals, PTX virtual registers.
  bool rename_blocks = true;    ///< MLIR ^bb, LLVM labels, PTX $L__ labels.
  bool rename_aliases = true;   ///< #blocked1 / !alias names: identified by their definitions.
  bool drop_locations = true;   ///< loc(...), #locN tables, !dbg, DI* metadata, .loc/.file, paths.
  bool rename_metadata = true;  ///< LLVM !N numbering and #N attribute-group numbering.
  /// Module-local globals that the compiler names with a counter (LLVM
  /// `private` / `internal` global variables: `@assertMessage_3`, `@.str.2`,
  /// `@0`; PTX data without `.visible` / `.extern`: `assertFile_1`, `_$_str`,
  /// `__unnamed_1`): identified by their definitions.
  bool rename_globals = true;
  bool drop_ident = true;      ///< llvm.ident, producer / version strings, PTX header comments.
  bool drop_comments = true;   ///< // and ; comments.
  bool drop_reg_decls = true;  ///< PTX `.reg .b32 %r<503>;` (kept as a resource figure).
  /// A line longer than this is an error (kParseError naming the line): real
  /// compiler output stays far below (the Triton corpus tops out near 4.2 KB).
  uint32_t max_line_bytes = 256 * 1024;

  bool operator==(const NormalizeOptions&) const = default;
};

/// Classes of renamed symbols. Two symbols correspond only within a class.
enum class SymbolClass : uint8_t {
  kValue,      ///< %x (MLIR), %12 (LLVM), %r12 (PTX register).
  kBlock,      ///< ^bb3, LLVM label, PTX $L__BB label.
  kAlias,      ///< MLIR #attr / !type alias.
  kMetadata,   ///< LLVM !N.
  kAttrGroup,  ///< LLVM #N.
  kGlobal,     ///< Module-local global (`@.str.2`, PTX `assertMessage_0`): see rename_globals.
};

/// One occurrence of a renamable symbol inside Line::display (20 bytes: a
/// module holds one per name in its text).
struct SymbolRef {
  uint32_t id = 0;            ///< Index into Module::symbols.
  uint32_t offset = 0;        ///< Byte offset within Line::display.
  uint32_t length = 0;        ///< Byte length within Line::display (the spelled name).
  uint32_t shape_offset = 0;  ///< Byte offset of its mask within Line::shape.
  uint16_t shape_length = 0;  ///< Byte length of the mask ("%_", "%rd", "#blocked", ...).
  bool is_def = false;        ///< This occurrence defines the symbol (result, block arg, label).
};

/// One significant line of IR (lines that normalize to nothing are skipped).
///
/// Its texts and symbol references are views: into the Module that holds
/// the line (Module::text, Module::refs) when normalize() built it, or into
/// whatever outlives the line when a caller builds one by hand (string
/// literals in tests). They stay valid while that owner lives; moving the
/// Module keeps them valid.
struct Line {
  uint32_t line_no = 0;       ///< 1-based line in the file.
  int32_t py_line = -1;       ///< Python source line this op came from, -1 unknown.
  uint16_t depth = 0;         ///< Region / brace nesting depth at line start.
  /// A definition whose position carries no meaning (MLIR alias, LLVM `!N`
  /// metadata or `attributes #N` line, with renaming on): canonical_text()
  /// prints these after the unit's other lines, sorted, so that reordering
  /// or renumbering definitions is no change.
  bool order_free = false;
  std::string_view display;   ///< Original text, dropped parts removed, trimmed.
  std::string_view shape;     ///< Canonical text with every symbol masked by its class:
                              ///< "%_" values, "%r"/"%rd"/"%p"... PTX registers ("%b32"...
                              ///< by declared type when named without `%`), "^" blocks
                              ///< and LLVM labels, "$L" PTX labels, ".L" asm labels,
                              ///< "#alias"/"!alias" MLIR aliases, "!md" LLVM metadata,
                              ///< "#attrs" attribute groups. Tokens are separated by
                              ///< single spaces.
  std::span<const SymbolRef> symbols;  ///< Occurrences in display order (1:1 with the masks in shape).
  std::string_view op;        ///< Op / instruction mnemonic ("tt.load", "getelementptr",
                              ///< "ld.global.v2.b32", "scf.for"); empty for none.
  /// Callee of a call-like op: "llvm.nvvm.read.ptx.sreg.tid.x" for
  /// `call i32 @llvm.nvvm.read.ptx.sreg.tid.x()`, "asm" for inline asm, the
  /// symbol of an MLIR `tt.call @f`; empty otherwise. See call_counts().
  std::string_view callee;
};

/// A function (or the module-level lines, as a unit named "" kept first).
struct Unit {
  std::string name;  ///< Function symbol without '@' ("add_kernel"); "" = module level.
  std::vector<Line> lines;
  uint64_t hash = 0;  ///< Hash of the canonical text of this unit.
};

struct Symbol {
  std::string_view name;  ///< As spelled (a view into Module::text), e.g. "%offsets_1", "#blocked1", "%r12", "$L__BB0_2".
  SymbolClass cls = SymbolClass::kValue;
  int32_t unit = -1;  ///< Unit index owning it; -1 = module scope (aliases, metadata).
  /// Canonical id: position-of-first-occurrence within its unit for values and
  /// blocks (counted per mask, so PTX `%r` and `%rd` number separately; an
  /// SSA name defined twice, e.g. in two sibling regions, is two symbols);
  /// definition-content hash for aliases / metadata / attribute groups, with
  /// nested references resolved (`distinct` metadata of equal content told
  /// apart by first reach; names never defined numbered by first reference).
  /// Equal canonical ids (within a class and mask) across two modules mean
  /// "same symbol after normalization".
  uint64_t canonical = 0;
};

/// A normalized file. Move-only: its lines and symbols view the texts and
/// references it owns (`text`, `refs`), which a move keeps in place.
struct Module {
  ir::Dialect dialect = ir::Dialect::kMlir;
  std::string file;         ///< Path it came from (for messages).
  std::vector<Unit> units;  ///< Module-level unit first, then functions in file order.
  std::vector<Symbol> symbols;
  /// Figures moved out of the text: PTX ".reg .b32" -> 503, ".reg .pred" -> 41,
  /// ".shared" bytes, ... Keyed by a stable name.
  std::map<std::string, int64_t> resources;
  uint64_t hash = 0;  ///< XXH3-64 of canonical_text(*this).
  uint64_t input_bytes = 0;
  /// Where the normalizer gave less than its rules promise, for the reader
  /// ("" = nowhere): e.g. "12 global symbols named by spelling, not by
  /// definition (definitions nested over 400 deep; first: @f399): renaming
  /// one shows as a change". The diff shows it as the stage's fallback.
  std::string fallback;
  /// What the lines and symbols view: every Line's display, shape, op and
  /// callee, every Symbol's name (one copy each, back to back).
  TextArena text;
  /// Every Line's symbol references, the lines' spans back to back.
  std::vector<SymbolRef> refs;
};

/// Normalizes `text` (its name() is used only in errors) under `opts`.
/// Errors: kParseError with file:line:col for unterminated strings or `/*`
/// comments, brackets that never close (a truncated file) or close the wrong
/// one, lines over `max_line_bytes`, NUL / control bytes and bytes that are
/// not UTF-8 text. See docs/normalization.md for every rule.
Expected<Module> normalize(const TextBuffer& text, ir::Dialect dialect,
                           const NormalizeOptions& opts = {});

/// Hash only (the fast path: no Module built); equal to normalize(...)->hash.
Expected<uint64_t> normalized_hash(const TextBuffer& text, ir::Dialect dialect,
                                   const NormalizeOptions& opts = {});

namespace detail {
class Engine;
}  // namespace detail

/// A file normalized as far as its hash, kept so that its Module costs only
/// the building: normalized_hash()'s work, then the module() that
/// normalize() would return, without scanning the text again. For a pair
/// compared by hash that is diffed only when the hashes differ:
///
///   auto n = Normalization::run(head_text, ir::Dialect::kLlvm);
///   if (n && n->hash() != base_hash) { Module m = std::move(*n).module(); ... }
///
/// `text` must outlive it. It holds the thread's normalizer scratch while it
/// lives (another normalization on the thread meanwhile gets fresh memory).
class Normalization {
 public:
  /// Errors: as normalize().
  static Expected<Normalization> run(const TextBuffer& text, ir::Dialect dialect,
                                     const NormalizeOptions& opts = {});
  Normalization(Normalization&&) noexcept;
  Normalization& operator=(Normalization&&) noexcept;
  ~Normalization();

  /// Equal to normalized_hash() and to module().hash.
  uint64_t hash() const { return hash_; }
  /// Builds the Module (as normalize() returns it) and lets the scan go;
  /// called again (or after a move), an empty Module.
  Module module() &&;

 private:
  Normalization(std::unique_ptr<detail::Engine> engine, std::vector<uint64_t> unit_hashes,
                uint64_t hash);
  std::unique_ptr<detail::Engine> engine_;
  std::vector<uint64_t> unit_hashes_;  ///< Unit::hash of each unit, for module().
  uint64_t hash_ = 0;
};

/// The canonical text: one line per Line, symbols printed by canonical name
/// (%v0, ^b0, #a<hash>, ...). What `ksnap normalize FILE` prints; its hash is
/// Module::hash.
std::string canonical_text(const Module& m);

/// The part of canonical_text() that one unit prints; its hash is Unit::hash.
std::string canonical_unit_text(const Module& m, const Unit& u);

/// Number of ops per op name across all units (for op-count deltas).
std::map<std::string, int64_t> op_counts(const Module& m);

/// Number of calls per callee across all units (Line::callee), e.g.
/// {"llvm.nvvm.read.ptx.sreg.tid.x": 2, "asm": 14}.
std::map<std::string, int64_t> call_counts(const Module& m);

/// Canonical spelling of one symbol occurrence whose mask in the shape is
/// `mask` ("%_" -> "%v3", "%rd" -> "%rd3", "^" -> "^b3", "#blocked" ->
/// "#a<16 hex>", "!md" -> "!m<16 hex>", "#attrs" -> "#g<16 hex>").
std::string canonical_name(const Symbol& s, std::string_view mask);

}  // namespace ksnap::norm
