// ksnap explain: the pass-dump parser and the first-differing-pass search.
// The contracts and a worked example are in include/ksnap/diff/explain.h.
//
// Worked example of the header parser:
//   "// -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' operation)
//   //----- //"
//     -> before, mlir, pass "TritonGPUCoalesce", argument "tritongpu-coalesce", scope
//     "builtin.module"
//   "; *** IR Dump After InstCombinePass on add_kernel ***"
//     -> after, llvm, pass "InstCombinePass", scope "add_kernel"
//   "# *** IR Dump After NVPTX DAG->DAG Pattern Instruction Selection (nvptx-isel) ***:"
//     -> after, machine, pass "NVPTX DAG->DAG Pattern Instruction Selection", argument "nvptx-isel"
#include "ksnap/diff/explain.h"

#include <cctype>
#include <optional>
#include <string>
#include <utility>

#include "diff/align.h"
#include "ksnap/diff/statistics.h"
#include "ksnap/normalize/normalize.h"
#include "ksnap/support/file.h"
#include "ksnap/support/hash.h"

namespace ksnap::diff {

const char* dump_dialect_name(DumpDialect d) {
  switch (d) {
    case DumpDialect::kMlir:
      return "mlir";
    case DumpDialect::kLlvm:
      return "llvm";
    case DumpDialect::kMachine:
      return "machine";
  }
  return "?";
}

std::string PassSnapshot::label() const {
  if (entry) return "input of " + next_pass;
  return argument.empty() ? pass : argument;
}

namespace {

constexpr std::string_view kMlirOpen = "// -----// IR Dump ";
constexpr std::string_view kMlirClose = " //----- //";
constexpr std::string_view kLlvmOpen = "*** IR Dump ";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

/// Splits a trailing "(...)" group off `s` (balanced parentheses): `s` keeps
/// what is before it (trimmed), the group's inside is returned. nullopt when
/// `s` does not end with a balanced group.
std::optional<std::string_view> take_trailing_group(std::string_view* s) {
  std::string_view t = trim(*s);
  if (t.empty() || t.back() != ')') return std::nullopt;
  int depth = 0;
  for (size_t i = t.size(); i-- > 0;) {
    if (t[i] == ')') ++depth;
    if (t[i] == '(' && --depth == 0) {
      std::string_view inside = t.substr(i + 1, t.size() - i - 2);
      *s = trim(t.substr(0, i));
      return inside;
    }
  }
  return std::nullopt;
}

/// What a header line is: not a header, a header, a header to skip (no IR
/// follows: "omitted because no change", "invalidated"), or malformed.
enum class HeaderKind { kNone, kDump, kSkip, kBad };

struct Header {
  HeaderKind kind = HeaderKind::kNone;
  PassDump dump;
  std::string why;  ///< kBad: what is wrong.
  uint32_t column = 1;
};

Header bad(std::string why, uint32_t column = 1) {
  Header h;
  h.kind = HeaderKind::kBad;
  h.why = std::move(why);
  h.column = column;
  return h;
}

/// "Before X" / "After X" / "After X Failed" -> (before, rest, failed).
bool take_when(std::string_view* body, bool* before) {
  if (starts_with(*body, "Before ")) {
    *before = true;
    body->remove_prefix(7);
    return true;
  }
  if (starts_with(*body, "After ")) {
    *before = false;
    body->remove_prefix(6);
    return true;
  }
  return false;
}

/// `// -----// IR Dump Before NAME[ Failed] (ARG)[ ('OP' operation[: @SYM])] //----- //`
Header parse_mlir_header(std::string_view line) {
  std::string_view body = trim(line.substr(kMlirOpen.size()));
  if (!ends_with(body, kMlirClose.substr(1)))
    return bad("MLIR dump header without its closing '//----- //'");
  body = trim(body.substr(0, body.size() - (kMlirClose.size() - 1)));
  Header h;
  h.kind = HeaderKind::kDump;
  PassDump& d = h.dump;
  d.dialect = DumpDialect::kMlir;
  if (!take_when(&body, &d.before))
    return bad("MLIR dump header: expected 'Before' or 'After' after 'IR Dump'",
               static_cast<uint32_t>(kMlirOpen.size() + 1));
  // The scope group "('tt.func' operation: @k)" comes last when printed at module scope.
  std::string_view rest = body;
  if (auto g = take_trailing_group(&rest); g && starts_with(*g, "'")) {
    std::string_view inside = *g;
    size_t q = inside.find('\'', 1);
    if (q == std::string_view::npos) return bad("MLIR dump header: unterminated operation name");
    d.scope = std::string(inside.substr(1, q - 1));
    size_t at = inside.find(": @", q);
    if (at != std::string_view::npos) d.scope += " @" + std::string(trim(inside.substr(at + 3)));
    body = rest;
  }
  rest = body;
  if (auto g = take_trailing_group(&rest)) {
    d.argument = std::string(trim(*g));
    body = rest;
  }
  if (ends_with(body, " Failed")) {
    d.failed = true;
    body = trim(body.substr(0, body.size() - 7));
  }
  if (body.empty()) return bad("MLIR dump header without a pass name");
  d.pass = std::string(body);
  return h;
}

/// LLVM: `[; |# ]*** IR Dump (Before|After) BODY ***[:][ (function: F)]`, BODY
/// being `NAME on SCOPE` (new pass manager) or `NAME (ARG)` (legacy).
Header parse_llvm_header(std::string_view line, DumpDialect dialect) {
  std::string_view body = line.substr(kLlvmOpen.size());
  size_t close = body.rfind("***");
  if (close == std::string_view::npos || close == 0)
    return bad("LLVM dump header without its closing '***'");
  std::string_view tail = trim(body.substr(close + 3));
  body = trim(body.substr(0, close));
  Header h;
  h.kind = HeaderKind::kDump;
  PassDump& d = h.dump;
  d.dialect = dialect;
  if (starts_with(tail, ":")) tail = trim(tail.substr(1));
  if (starts_with(tail, "(function: ") && ends_with(tail, ")"))
    d.scope = std::string(tail.substr(11, tail.size() - 12));
  if (body == "At Start") {  // print-changed's first dump: the IR as it came in
    d.before = true;
    d.pass = "(start)";
    return h;
  }
  if (starts_with(body, "Pass ") || ends_with(body, " invalidated") ||
      ends_with(body, " omitted because no change") || ends_with(body, " filtered out")) {
    h.kind = HeaderKind::kSkip;
    return h;
  }
  if (!take_when(&body, &d.before))
    return bad("LLVM dump header: expected 'Before' or 'After' after 'IR Dump'");
  size_t on = body.find(" on ");
  std::string_view rest = body;
  if (auto g = take_trailing_group(&rest);
      g && (on == std::string_view::npos || on > rest.size())) {
    d.argument = std::string(trim(*g));  // legacy: "Name (arg)"
    body = rest;
  } else if (on != std::string_view::npos) {
    d.scope = std::string(trim(body.substr(on + 4)));
    body = trim(body.substr(0, on));
  }
  if (body.empty()) return bad("LLVM dump header without a pass name");
  d.pass = std::string(body);
  return h;
}

Header parse_header(std::string_view line) {
  line = trim(line);
  if (starts_with(line, kMlirOpen)) return parse_mlir_header(line);
  DumpDialect dialect = DumpDialect::kLlvm;
  if (starts_with(line, "; ")) {
    line.remove_prefix(2);
  } else if (starts_with(line, "# ")) {
    line.remove_prefix(2);
    dialect = DumpDialect::kMachine;
  }
  if (starts_with(line, kLlvmOpen)) return parse_llvm_header(line, dialect);
  return {};
}

/// LLVM's pass-manager logging (StandardInstrumentations with debug logging,
/// which Triton's optimize_module turns on with LLVM_IR_ENABLE_DUMP): lines
/// between the dumps that are not IR.
bool is_pass_manager_log(std::string_view line) {
  for (std::string_view p : {"Running pass: ", "Running analysis: ", "Invalidating analysis: ",
                             "Invalidating all non-preserved analyses for: ",
                             "Clearing all analysis results for: ", "Skipping pass: "})
    if (starts_with(line, p)) return true;
  return false;
}

}  // namespace

Expected<std::vector<PassDump>> parse_pass_dumps(std::string_view stream, const std::string& name,
                                                 const DumpParseOptions& opts) {
  std::vector<PassDump> out;
  std::string* text = nullptr;  // the text of the dump being collected
  uint32_t line_no = 0;
  size_t pos = 0;
  while (pos < stream.size()) {
    ++line_no;
    size_t nl = stream.find('\n', pos);
    size_t end = nl == std::string_view::npos ? stream.size() : nl;
    std::string_view line = stream.substr(pos, end - pos);
    size_t next = nl == std::string_view::npos ? stream.size() : nl + 1;
    // Cheap filter: a header's first bytes are '/', ';', '#' or '*'.
    char c = line.empty() ? '\0' : line.front();
    if ((c == '/' || c == ';' || c == '#' || c == '*') &&
        line.find("IR Dump") != std::string_view::npos) {
      Header h = parse_header(line);
      if (h.kind == HeaderKind::kBad)
        return make_error(ErrorCode::kParseError, h.why, {name, line_no, h.column});
      if (h.kind != HeaderKind::kNone) {
        text = nullptr;
        if (h.kind == HeaderKind::kDump) {
          if (out.size() >= opts.max_dumps)
            return make_error(ErrorCode::kUnsupported,
                              "more than " + std::to_string(opts.max_dumps) + " pass dumps",
                              {name, line_no, 1});
          h.dump.line = line_no;
          out.push_back(std::move(h.dump));
          text = &out.back().text;
        }
        pos = next;
        continue;
      }
    }
    if (text && !is_pass_manager_log(line)) text->append(stream.substr(pos, next - pos));
    pos = next;
  }
  return out;
}

std::vector<PassSnapshot> pass_outputs(const std::vector<PassDump>& dumps) {
  std::vector<PassSnapshot> out;
  const PassDump* prev = nullptr;
  for (const PassDump& d : dumps) {
    PassSnapshot s;
    s.line = d.line;
    s.text = d.text;
    s.dialect = d.dialect;
    if (!d.before) {
      s.pass = d.pass;
      s.argument = d.argument;
    } else if (prev && !prev->before && prev->dialect == d.dialect && prev->text == d.text) {
      prev = &d;  // "Before P" repeating the "After" just printed: nothing new
      continue;
    } else if (prev && prev->before && prev->dialect == d.dialect) {
      s.pass = prev->pass;  // the output of the pass printed before this one
      s.argument = prev->argument;
      s.next_pass = d.argument.empty() ? d.pass : d.argument;
    } else {
      s.entry = true;  // first, or the IR changed outside any printed pass
      s.next_pass = d.argument.empty() ? d.pass : d.argument;
    }
    out.push_back(std::move(s));
    prev = &d;
  }
  return out;
}

namespace {

/// The text a snapshot is compared and diffed by: for machine code, without
/// its debug locations (`, debug-location !8`, `debug-instr-number 3`, DBG_*
/// pseudo-instructions), which LLVM IR's rules do not know (MIR is lexed as
/// LLVM IR; its `; file:line` comments go with the other comments).
std::string comparable_text(const PassSnapshot& s) {
  if (s.dialect != DumpDialect::kMachine) return std::string(s.text);
  std::string out;
  out.reserve(s.text.size());
  std::string_view t = s.text;
  while (!t.empty()) {
    size_t nl = t.find('\n');
    std::string_view line = t.substr(0, nl == std::string_view::npos ? t.size() : nl + 1);
    t.remove_prefix(line.size());
    if (starts_with(trim(line), "DBG_")) continue;
    for (std::string_view key : {"debug-location !", "debug-instr-number "}) {
      size_t at;
      while ((at = line.find(key)) != std::string_view::npos) {
        size_t begin = at, end = at + key.size();
        while (end < line.size() && std::isalnum(static_cast<unsigned char>(line[end]))) ++end;
        while (begin > 0 && line[begin - 1] == ' ') --begin;
        if (begin > 0 && line[begin - 1] == ',') --begin;
        out.append(line.substr(0, begin));
        line.remove_prefix(end);
      }
    }
    out.append(line);
  }
  return out;
}

ir::Dialect ir_dialect(DumpDialect d) {
  // Machine code (MIR) is lexed by LLVM IR rules: `%3:int32regs = ...`
  // values, `bb.0.entry:` labels, `#` comments normalize as LLVM text does.
  return d == DumpDialect::kMlir ? ir::Dialect::kMlir : ir::Dialect::kLlvm;
}

/// Compares snapshots by normalized hash, each computed once.
class Comparer {
 public:
  Comparer(const std::vector<PassSnapshot>& a, const std::vector<PassSnapshot>& b)
      : a_(a), b_(b), ha_(a.size()), hb_(b.size()) {}

  bool equal(bool a_side, size_t i, bool b_side, size_t j) {
    const PassSnapshot& x = (a_side ? a_ : b_)[i];
    const PassSnapshot& y = (b_side ? a_ : b_)[j];
    if (x.dialect != y.dialect) return false;
    if (x.text == y.text) return true;
    if (x.dialect == DumpDialect::kMachine && comparable_text(x) == comparable_text(y)) return true;
    const Hash* hx = hash(a_side, i);
    const Hash* hy = hash(b_side, j);
    if (!hx->ok || !hy->ok) return false;  // bytes differ and one cannot be normalized
    return hx->value == hy->value;
  }

  std::vector<std::string> notes;

 private:
  struct Hash {
    bool done = false, ok = false;
    uint64_t value = 0;
  };

  const Hash* hash(bool a_side, size_t i) {
    Hash& h = (a_side ? ha_ : hb_)[i];
    if (h.done) return &h;
    h.done = true;
    const PassSnapshot& s = (a_side ? a_ : b_)[i];
    TextBuffer buf(s.label(), comparable_text(s));
    auto r = norm::normalized_hash(buf, ir_dialect(s.dialect));
    if (r) {
      h.ok = true;
      h.value = *r;
    } else if (notes.size() < 8) {
      notes.push_back(std::string(a_side ? "BASE" : "HEAD") + " dump at line " +
                      std::to_string(s.line) + " (" + s.label() +
                      ") does not normalize, compared by bytes: " + r.status().message());
    }
    return &h;
  }

  const std::vector<PassSnapshot>& a_;
  const std::vector<PassSnapshot>& b_;
  std::vector<Hash> ha_, hb_;
};

uint64_t align_key(const PassSnapshot& s) {
  std::string k = std::string(dump_dialect_name(s.dialect)) + '\x1f' +
                  (s.entry ? "entry" : "pass") + '\x1f' + s.pass + '\x1f' + s.argument + '\x1f' +
                  (s.entry ? s.next_pass : "");
  return hash64(k);
}

/// The structural diff of two IR texts (StageDiff::fallback says why when
/// they do not normalize: then a line count only).
void diff_texts(const PassSnapshot& x, const PassSnapshot& y, const ExplainOptions& opts,
                StageDiff* sd) {
  sd->stage = x.label();
  sd->status = ChangeStatus::kChanged;
  TextBuffer bx("BASE:" + std::to_string(x.line), comparable_text(x));
  TextBuffer by("HEAD:" + std::to_string(y.line), comparable_text(y));
  auto mx = norm::normalize(bx, ir_dialect(x.dialect));
  auto my = norm::normalize(by, ir_dialect(y.dialect));
  if (!mx || !my) {
    sd->fallback =
        "not normalized (" + (mx ? my.status() : mx.status()).message() + "); no structural diff";
    return;
  }
  sd->base_hash = mx->hash;
  sd->head_hash = my->hash;
  structural_diff(*mx, *my, opts.structural, sd);
  sd->op_deltas = op_count_deltas(*mx, *my);
}

void fill_found(const PassSnapshot& s, ExplainResult* r) {
  r->found = true;
  r->pass = s.entry ? "" : s.pass;
  r->argument = s.entry ? "" : s.argument;
  r->label = s.label();
  r->dialect = s.dialect;
  r->entry = s.entry;
}

}  // namespace

ExplainResult explain_passes(const std::vector<PassDump>& base, const std::vector<PassDump>& head,
                             const ExplainOptions& opts) {
  ExplainResult r;
  std::vector<PassSnapshot> a = pass_outputs(base), b = pass_outputs(head);
  r.base_snapshots = a.size();
  r.head_snapshots = b.size();
  std::vector<uint64_t> ka, kb;
  for (const auto& s : a) ka.push_back(align_key(s));
  for (const auto& s : b) kb.push_back(align_key(s));
  std::vector<Match> matches = align(ka, kb, uint64_t{64} << 20);
  r.aligned = matches.size();
  matches.emplace_back(static_cast<uint32_t>(a.size()), static_cast<uint32_t>(b.size()));
  Comparer cmp(a, b);
  bool inputs_equal = false;  // the last compared pair was equal, nothing changed since
  size_t i = 0, j = 0;
  // A pass in one side's gap that changed the IR (against the snapshot
  // before it, same dialect) is the first difference.
  auto one_sided = [&](bool base_side, size_t from, size_t to) -> bool {
    const std::vector<PassSnapshot>& v = base_side ? a : b;
    for (size_t k = from; k < to; ++k) {
      if (k > 0 && cmp.equal(base_side, k - 1, base_side, k)) continue;  // a no-op pass
      fill_found(v[k], &r);
      r.only_in = base_side ? -1 : 1;
      r.inputs_equal = inputs_equal;
      (base_side ? r.base_index : r.head_index) = k;
      (base_side ? r.base_line : r.head_line) = v[k].line;
      if (k > 0 && v[k - 1].dialect == v[k].dialect) {
        diff_texts(v[k - 1], v[k], opts, &r.diff);
        r.diff.stage = v[k].label();
      } else {
        r.diff.stage = v[k].label();
        r.diff.status = ChangeStatus::kChanged;
        r.diff.fallback = "no earlier dump of this dialect to compare its output with";
      }
      return true;
    }
    return false;
  };
  for (const Match& m : matches) {
    if (one_sided(true, i, m.first) || one_sided(false, j, m.second)) break;
    if (m.first == a.size()) break;
    if (!cmp.equal(true, m.first, false, m.second)) {
      fill_found(a[m.first], &r);
      r.only_in = 0;
      r.inputs_equal = inputs_equal;
      r.base_index = m.first;
      r.head_index = m.second;
      r.base_line = a[m.first].line;
      r.head_line = b[m.second].line;
      diff_texts(a[m.first], b[m.second], opts, &r.diff);
      break;
    }
    ++r.equal_before;
    r.previous_label = a[m.first].label();
    inputs_equal = true;
    i = m.first + 1;
    j = m.second + 1;
  }
  r.notes = std::move(cmp.notes);
  return r;
}

}  // namespace ksnap::diff
