// Cosmetic perturbations and real mutations of IR text, for tests. An
// implementation of its own: plain character scanning of the text, nothing
// from the normalizer or its lexer, so that a bug there cannot hide itself.
//
//   Cosmetic (must read as unchanged):
//     rename     every SSA value / block / label / virtual register gets
//                another name, one per definition (MLIR: scope by scope, so
//                names that sibling regions shared become distinct)
//     renumber   aliases (MLIR, prefix and number), metadata and attribute
//                groups (LLVM) get other names; their definitions are
//                reordered
//     locs       the MLIR `#loc` table is renumbered and reordered
//   Real (the diff must show exactly these lines):
//     constant   one integer of one op changes
//     insert     one op is repeated with a new result
//   Repetitive code (the diff must stay within 2 lines):
//     run_delete / run_duplicate  one line in the middle of a run of ops
//                of one shape is deleted / written twice
// Cosmetic perturbations never add, remove or move an op line, so a
// mutation's line numbers hold after them.
#pragma once

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksnap::testing::perturb {

enum class Kind { kMlir, kLlvm, kPtx, kAmdgcn };

inline const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kMlir: return "mlir";
    case Kind::kLlvm: return "llvm";
    case Kind::kPtx: return "ptx";
    case Kind::kAmdgcn: return "amdgcn";
  }
  return "?";
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    out.push_back(text.substr(pos, eol - pos));
    pos = eol + 1;
  }
  return out;
}

inline std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

inline std::string_view trim_left(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

/// One step of a scan over `l`: true when `l[*i]` belongs to a string
/// literal (the caller moves on; an escape moves `*i` past its char), false
/// when it is code. `*str` carries the state between steps.
inline bool in_string(std::string_view l, size_t* i, bool* str) {
  char c = l[*i];
  if (*str) {
    if (c == '\\') ++*i;
    else if (c == '"') *str = false;
    return true;
  }
  if (c == '"') {
    *str = true;
    return true;
  }
  return false;
}

/// Where the code of a line ends: at its comment (`//` or `;`), outside strings.
inline size_t code_end(std::string_view l, Kind k) {
  bool str = false;
  for (size_t i = 0; i < l.size(); ++i) {
    if (in_string(l, &i, &str)) continue;
    char c = l[i];
    if (c == ';' && (k == Kind::kLlvm || k == Kind::kAmdgcn)) return i;
    else if (c == '/' && i + 1 < l.size() && l[i + 1] == '/' && k != Kind::kLlvm) return i;
  }
  return l.size();
}

/// One name occurrence in a line: [begin, end) of the text.
struct Span {
  size_t begin, end;
};

inline bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '-';
}

/// Occurrences of names starting with `sigil` in the code part of a line,
/// outside strings (`%x_3`, `^bb1`, `!12`, `#blocked1`). An LLVM quoted name
/// `%"a b"` is one occurrence.
inline std::vector<Span> sigil_names(std::string_view l, char sigil, Kind k) {
  std::vector<Span> out;
  size_t end = code_end(l, k);
  bool str = false;
  for (size_t i = 0; i < end; ++i) {
    if (in_string(l, &i, &str)) continue;
    char c = l[i];
    if (c != sigil) continue;
    // Inside another word, except a shape's `4x!alias` / `4x#alias`.
    bool shape_x = i >= 2 && l[i - 1] == 'x' && std::isdigit(static_cast<unsigned char>(l[i - 2]));
    if (i > 0 && (name_char(l[i - 1]) || l[i - 1] == sigil) && !shape_x) continue;
    size_t j = i + 1;
    if (k == Kind::kLlvm && j < end && l[j] == '"') {
      size_t q = l.find('"', j + 1);
      if (q == std::string_view::npos) continue;
      out.push_back({i, q + 1});
      i = q;
      continue;
    }
    while (j < end && (name_char(l[j]) && !(k == Kind::kMlir && l[j] == '.' && sigil != '%'))) ++j;
    if (j == i + 1) continue;
    out.push_back({i, j});
    i = j - 1;
  }
  return out;
}

/// Replaces spans (sorted, disjoint) of `l` by `repl[k]`.
inline std::string splice(std::string_view l, const std::vector<Span>& spans,
                          const std::vector<std::string>& repl) {
  std::string out;
  size_t pos = 0;
  for (size_t k = 0; k < spans.size(); ++k) {
    out.append(l.substr(pos, spans[k].begin - pos));
    out += repl[k];
    pos = spans[k].end;
  }
  out.append(l.substr(pos));
  return out;
}

/// Counts `{` and `}` in the code part of a line, outside strings.
inline void braces(std::string_view l, Kind k, int* opens, int* closes, int* min_depth) {
  size_t end = code_end(l, k);
  bool str = false;
  int depth = 0;
  *opens = *closes = 0;
  *min_depth = 0;
  for (size_t i = 0; i < end; ++i) {
    if (in_string(l, &i, &str)) continue;
    char c = l[i];
    if (c == '{') ++*opens, ++depth;
    else if (c == '}') ++*closes, *min_depth = std::min(*min_depth, --depth);
  }
}

// ------------------------------------------------------------------ MLIR --

/// Renames every SSA value and block, one fresh name per definition, region
/// by region: a name's definition is visible in its region and the regions
/// nested in it. Arguments declared on a line that opens a region (function
/// and block arguments, `iter_args(%a = ...)`, `scf.for %iv = ...`) belong to
/// that region; results before `=` to the enclosing one.
inline std::string mlir_rename(const std::string& text) {
  std::vector<std::string> lines = lines_of(text);
  struct Occ {
    size_t line;
    Span span;
    std::string key;  // the name without `#N` / `:N` suffix
    std::string suffix;
    bool def;
    int scope;                // scope instance the definition goes to (defs)
    std::vector<int> chain;   // visible scope instances, innermost first (uses)
  };
  std::vector<Occ> occs;
  std::vector<int> stack = {0};  // scope instances, outermost first
  int next_scope = 1;
  int paren_carry = 0;  // `(` left open by earlier lines
  for (size_t li = 0; li < lines.size(); ++li) {
    std::string_view l = lines[li];
    std::string_view t = trim_left(l);
    if (starts_with(t, "#") || starts_with(t, "!")) continue;  // alias definitions
    // Names and braces in the order they appear, outside strings and comments.
    struct Event {
      size_t pos;
      char brace;  // '{', '}' or 0 for a name
      Span span;
      char sigil;
    };
    std::vector<Event> events;
    for (char sigil : {'%', '^'})
      for (const Span& s : sigil_names(l, sigil, Kind::kMlir)) events.push_back({s.begin, 0, s, sigil});
    {
      size_t end = code_end(l, Kind::kMlir);
      bool str = false;
      for (size_t i = 0; i < end; ++i) {
        if (!in_string(l, &i, &str) && (l[i] == '{' || l[i] == '}'))
          events.push_back({i, l[i], {i, i + 1}, 0});
      }
    }
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.pos < b.pos; });
    // The region this line opens, if any: the `{` still open at its end
    // (not an attribute dictionary, which closes on the line).
    int region_scope = -1;
    {
      std::vector<int> open;
      int id = next_scope;
      for (const Event& ev : events) {
        if (ev.brace == '{') open.push_back(id++);
        else if (ev.brace == '}' && !open.empty()) open.pop_back();
      }
      if (!open.empty()) region_scope = open.back();
    }
    // Results: `%a, %b:2 = ` at the start of the line (not the next
    // argument of a list that goes on over several lines).
    size_t eq = std::string_view::npos;
    if (starts_with(t, "%") && paren_carry == 0) eq = l.find(" = ");
    bool block_line = starts_with(t, "^");
    for (size_t e = 0; e < events.size(); ++e) {
      const Event& ev = events[e];
      if (ev.brace == '{') {
        stack.push_back(next_scope++);
        continue;
      }
      if (ev.brace == '}') {
        if (stack.size() > 1) stack.pop_back();
        continue;
      }
      const Span& s = ev.span;
      std::string key(l.substr(s.begin, s.end - s.begin)), suffix;
      // `%0#1`: result 1 of `%0`.
      if (ev.sigil == '%' && s.end < l.size() && l[s.end] == '#') {
        size_t j = s.end + 1;
        while (j < l.size() && std::isdigit(static_cast<unsigned char>(l[j]))) ++j;
        if (j > s.end + 1) suffix = std::string(l.substr(s.end, j - s.end));
      }
      bool def = false;
      int scope = stack.back();
      if (ev.sigil == '^') {
        def = block_line && trim_left(l).data() == l.data() + s.begin;  // `^bb1(...)` / `^bb1:`
      } else if (eq != std::string_view::npos && s.end <= eq) {
        def = true;  // a result: visible after the op, in the enclosing region
      } else {
        std::string_view after = l.substr(s.end);
        int paren = paren_carry;
        for (size_t i = 0; i < s.begin; ++i) paren += l[i] == '(' ? 1 : l[i] == ')' ? -1 : 0;
        def = starts_with(after, " = ") || (paren > 0 && starts_with(after, ":"));
        // A region's argument belongs to the region the line opens.
        if (def && !block_line && region_scope >= 0) scope = region_scope;
      }
      std::vector<int> chain(stack.rbegin(), stack.rend());
      occs.push_back(Occ{li, {s.begin, s.end + suffix.size()}, key, suffix, def, scope, chain});
    }
    size_t end = code_end(l, Kind::kMlir);
    bool str = false;
    for (size_t i = 0; i < end; ++i) {
      if (in_string(l, &i, &str)) continue;
      paren_carry += l[i] == '(' ? 1 : l[i] == ')' ? -1 : 0;
    }
    paren_carry = std::max(paren_carry, 0);
  }
  // Definitions first, so that uses before them (graph regions, branches to
  // later blocks) resolve as well.
  std::map<std::pair<int, std::string>, std::string> defined;
  size_t counter = 0;
  auto fresh = [&](char sigil) {
    ++counter;
    return sigil == '%' ? (counter % 3 == 0 ? "%" + std::to_string(counter + 1000)
                                             : "%t" + std::to_string(counter) + "_v")
                        : "^blk" + std::to_string(counter);
  };
  for (Occ& o : occs) {
    if (!o.def) continue;
    auto key = std::make_pair(o.scope, o.key);
    if (!defined.count(key)) defined[key] = fresh(o.key[0]);
  }
  std::map<std::string, std::string> free_names;
  std::vector<std::vector<Span>> spans(lines.size());
  std::vector<std::vector<std::string>> repl(lines.size());
  for (const Occ& o : occs) {
    std::string to;
    if (o.def) {
      to = defined[{o.scope, o.key}];
    } else {
      for (int sc : o.chain) {
        auto it = defined.find({sc, o.key});
        if (it != defined.end()) {
          to = it->second;
          break;
        }
      }
      if (to.empty()) {
        auto it = free_names.find(o.key);
        to = it != free_names.end() ? it->second : (free_names[o.key] = fresh(o.key[0]));
      }
    }
    spans[o.line].push_back(o.span);
    repl[o.line].push_back(to + o.suffix);
  }
  for (size_t li = 0; li < lines.size(); ++li) {
    if (spans[li].empty()) continue;
    std::vector<size_t> order(spans[li].size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return spans[li][a].begin < spans[li][b].begin; });
    std::vector<Span> sp;
    std::vector<std::string> rp;
    for (size_t k : order) {
      sp.push_back(spans[li][k]);
      rp.push_back(repl[li][k]);
    }
    lines[li] = splice(lines[li], sp, rp);
  }
  return join(lines);
}

/// An MLIR alias definition line `#name = ...` / `!name = ...` (not `#loc`).
inline bool mlir_alias_def(std::string_view l, std::string* name) {
  if (l.empty() || (l[0] != '#' && l[0] != '!')) return false;
  size_t j = 1;
  while (j < l.size() && (std::isalnum(static_cast<unsigned char>(l[j])) || l[j] == '_' || l[j] == '$' || l[j] == '-')) ++j;
  if (j == 1 || !starts_with(l.substr(j), " = ")) return false;
  *name = std::string(l.substr(0, j));
  return !starts_with(*name, "#loc");
}

/// Renames aliases by a map; `pick` says which definitions to rename.
inline std::string mlir_rename_aliases(const std::string& text,
                                       const std::map<std::string, std::string>& to) {
  std::vector<std::string> lines = lines_of(text);
  for (std::string& l : lines) {
    for (char sigil : {'#', '!'}) {
      std::vector<Span> sp;
      std::vector<std::string> rp;
      for (const Span& s : sigil_names(l, sigil, Kind::kMlir)) {
        auto it = to.find(l.substr(s.begin, s.end - s.begin));
        if (it == to.end()) continue;
        sp.push_back(s);
        rp.push_back(it->second);
      }
      if (!sp.empty()) l = splice(l, sp, rp);
    }
  }
  return join(lines);
}

/// Reverses every run of consecutive lines for which `is_def` holds.
template <typename Pred>
std::string reverse_runs(const std::string& text, Pred is_def) {
  std::vector<std::string> lines = lines_of(text);
  for (size_t i = 0; i < lines.size();) {
    size_t j = i;
    while (j < lines.size() && is_def(lines[j])) ++j;
    if (j > i + 1) std::reverse(lines.begin() + static_cast<long>(i), lines.begin() + static_cast<long>(j));
    i = std::max(j, i + 1);
  }
  return join(lines);
}

/// Every alias gets another name, prefix included (`#blocked1` -> `#xa7`),
/// and each run of alias definitions is reversed.
inline std::string mlir_renumber_aliases(const std::string& text) {
  std::map<std::string, std::string> to;
  for (const std::string& l : lines_of(text)) {
    std::string name;
    if (mlir_alias_def(l, &name) && !to.count(name))
      to[name] = std::string(1, name[0]) + "xa" + std::to_string(97 - to.size());
  }
  if (to.empty()) return text;
  std::string out = mlir_rename_aliases(text, to);
  return reverse_runs(out, [](const std::string& l) {
    std::string n;
    return mlir_alias_def(l, &n);
  });
}

/// The `#loc` table renumbered (in reverse) and its lines reversed.
inline std::string mlir_shuffle_locs(const std::string& text) {
  std::map<std::string, std::string> to;
  std::vector<std::string> names;
  for (const std::string& l : lines_of(text)) {
    if (!starts_with(l, "#loc")) continue;
    size_t j = 1;
    while (j < l.size() && name_char(l[j]) && l[j] != '.') ++j;
    names.push_back(l.substr(0, j));
  }
  for (size_t k = 0; k < names.size(); ++k) to[names[k]] = "#loc" + std::to_string(900 + names.size() - k);
  if (to.empty()) return text;
  std::string out = mlir_rename_aliases(text, to);
  return reverse_runs(out, [](const std::string& l) { return starts_with(l, "#loc"); });
}

// ------------------------------------------------------------------ LLVM --

/// Every local value and block label of every function gets another name
/// (labels: dotted, dashed and quoted names, as LLVM's passes and other
/// front ends spell them).
inline std::string llvm_rename(const std::string& text) {
  std::vector<std::string> lines = lines_of(text);
  std::map<std::string, std::string> to;  // per function
  bool in_fn = false;
  size_t counter = 0;
  auto fresh_value = [&]() { return "%val" + std::to_string(++counter); };
  auto fresh_label = [&]() -> std::string {
    ++counter;
    switch (counter % 3) {
      case 0: return ".blk" + std::to_string(counter) + ".ph";
      case 1: return "\"bb-" + std::to_string(counter) + "\"";
      default: return "loop-" + std::to_string(counter);
    }
  };
  for (size_t li = 0; li < lines.size(); ++li) {
    std::string& l = lines[li];
    if (starts_with(l, "define ")) {
      in_fn = true;
      to.clear();
      // Labels first: a label's uses may come before it.
      for (size_t k = li + 1; k < lines.size() && lines[k] != "}"; ++k) {
        std::string_view m = lines[k];
        size_t end = code_end(m, Kind::kLlvm);
        std::string_view code = m.substr(0, end);
        while (!code.empty() && (code.back() == ' ' || code.back() == '\t')) code.remove_suffix(1);
        if (code.empty() || code.back() != ':' || code[0] == ' ' || code.find(' ') != std::string_view::npos)
          continue;
        std::string label(code.substr(0, code.size() - 1));
        to["%" + label] = "%" + fresh_label();
      }
    }
    if (!in_fn) continue;
    std::vector<Span> sp;
    std::vector<std::string> rp;
    for (const Span& s : sigil_names(l, '%', Kind::kLlvm)) {
      std::string name = l.substr(s.begin, s.end - s.begin);
      auto it = to.find(name);
      if (it == to.end()) it = to.emplace(name, fresh_value()).first;
      sp.push_back(s);
      rp.push_back(it->second);
    }
    // A label definition `name:` at the start of the line.
    std::string_view code = std::string_view(l).substr(0, code_end(l, Kind::kLlvm));
    while (!code.empty() && (code.back() == ' ' || code.back() == '\t')) code.remove_suffix(1);
    if (!code.empty() && code.back() == ':' && code[0] != ' ' && code.find(' ') == std::string_view::npos) {
      auto it = to.find("%" + std::string(code.substr(0, code.size() - 1)));
      if (it != to.end()) {
        sp.insert(sp.begin(), Span{0, code.size() - 1});
        rp.insert(rp.begin(), it->second.substr(1));
      }
    }
    if (!sp.empty()) l = splice(l, sp, rp);
    if (l == "}") in_fn = false;
  }
  return join(lines);
}

/// `!12` / `#3`: a numbered metadata node / attribute group reference.
inline std::vector<Span> numbered_refs(std::string_view l, char sigil) {
  std::vector<Span> out;
  for (const Span& s : sigil_names(l, sigil, Kind::kLlvm)) {
    bool digits = s.end > s.begin + 1;
    for (size_t i = s.begin + 1; i < s.end; ++i) digits &= std::isdigit(static_cast<unsigned char>(l[i])) != 0;
    if (digits) out.push_back(s);
  }
  return out;
}

/// Metadata nodes and attribute groups renumbered (in reverse order of
/// first appearance, from 500) and their definition lines reversed.
inline std::string llvm_renumber_metadata(const std::string& text) {
  std::vector<std::string> lines = lines_of(text);
  std::map<std::string, std::string> to;
  std::vector<std::string> order[2];
  const char sigils[2] = {'!', '#'};
  for (const std::string& l : lines) {
    for (int k = 0; k < 2; ++k) {
      for (const Span& s : numbered_refs(l, sigils[k])) {
        std::string n = l.substr(s.begin, s.end - s.begin);
        if (std::find(order[k].begin(), order[k].end(), n) == order[k].end()) order[k].push_back(n);
      }
    }
  }
  for (int k = 0; k < 2; ++k) {
    for (size_t i = 0; i < order[k].size(); ++i)
      to[order[k][i]] = std::string(1, sigils[k]) + std::to_string(500 + order[k].size() - i);
  }
  if (to.empty()) return text;
  for (std::string& l : lines) {
    for (int k = 0; k < 2; ++k) {
      std::vector<Span> sp = numbered_refs(l, sigils[k]);
      std::vector<std::string> rp;
      for (const Span& s : sp) rp.push_back(to[l.substr(s.begin, s.end - s.begin)]);
      if (!sp.empty()) l = splice(l, sp, rp);
    }
  }
  return reverse_runs(join(lines), [](const std::string& l) {
    return (l.size() > 1 && l[0] == '!' && std::isdigit(static_cast<unsigned char>(l[1]))) ||
           starts_with(l, "attributes #");
  });
}

// ------------------------------------------------------------- PTX, AMDGCN --

/// A PTX virtual register `%r12`: class letters and number; special
/// registers (`%tid.x`, `%clock64`, `%envreg3`, `%pm0`) are not.
inline bool ptx_vreg(std::string_view s, std::string* cls, long* num) {
  size_t i = 1;
  while (i < s.size() && std::islower(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 1 || i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(s[j]))) return false;
  *cls = std::string(s.substr(1, i - 1));
  if (*cls == "clock" || *cls == "pm" || *cls == "envreg") return false;
  *num = std::stol(std::string(s.substr(i)));
  return true;
}

/// Virtual registers permuted within their class (the numbers in use,
/// reversed) and `$L__BB` labels renumbered, per function.
inline std::string ptx_rename(const std::string& text) {
  std::vector<std::string> lines = lines_of(text);
  auto regs = [&](const std::string& l) {
    std::vector<Span> out;
    for (const Span& s : sigil_names(l, '%', Kind::kPtx)) {
      std::string cls;
      long n;
      if (ptx_vreg(std::string_view(l).substr(s.begin, s.end - s.begin), &cls, &n)) out.push_back(s);
    }
    return out;
  };
  std::map<std::string, std::vector<long>> used;
  for (const std::string& l : lines) {
    if (starts_with(trim_left(l), ".reg")) continue;
    for (const Span& s : regs(l)) {
      std::string cls;
      long n;
      ptx_vreg(std::string_view(l).substr(s.begin, s.end - s.begin), &cls, &n);
      used[cls].push_back(n);
    }
  }
  std::map<std::string, std::map<long, long>> perm;
  for (auto& [cls, v] : used) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (size_t i = 0; i < v.size(); ++i) perm[cls][v[i]] = v[v.size() - 1 - i];
  }
  for (std::string& l : lines) {
    if (starts_with(trim_left(l), ".reg")) continue;
    std::vector<Span> sp = regs(l);
    std::vector<std::string> rp;
    for (const Span& s : sp) {
      std::string cls;
      long n;
      ptx_vreg(std::string_view(l).substr(s.begin, s.end - s.begin), &cls, &n);
      rp.push_back("%" + cls + std::to_string(perm[cls][n]));
    }
    std::vector<Span> lsp;
    std::vector<std::string> lrp;
    for (const Span& s : sigil_names(l, '$', Kind::kPtx)) {
      std::string_view name = std::string_view(l).substr(s.begin, s.end - s.begin);
      if (!starts_with(name, "$L__BB")) continue;
      lsp.push_back(s);
      lrp.push_back("$L__BB_renamed_" + std::string(name.substr(6)));
    }
    // Merge the two span lists in order.
    std::vector<std::pair<Span, std::string>> all;
    for (size_t k = 0; k < sp.size(); ++k) all.push_back({sp[k], rp[k]});
    for (size_t k = 0; k < lsp.size(); ++k) all.push_back({lsp[k], lrp[k]});
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first.begin < b.first.begin; });
    sp.clear();
    rp.clear();
    for (auto& [s, r] : all) {
      sp.push_back(s);
      rp.push_back(r);
    }
    if (!sp.empty()) l = splice(l, sp, rp);
  }
  return join(lines);
}

/// AMDGCN `.LBB0_3` labels renumbered.
inline std::string amdgcn_rename(const std::string& text) {
  std::vector<std::string> lines = lines_of(text);
  for (std::string& l : lines) {
    std::vector<Span> sp;
    std::vector<std::string> rp;
    for (const Span& s : sigil_names(l, '.', Kind::kAmdgcn)) {
      std::string_view name = std::string_view(l).substr(s.begin, s.end - s.begin);
      if (!starts_with(name, ".LBB")) continue;
      sp.push_back(s);
      rp.push_back(".LBB_renamed_" + std::string(name.substr(4)));
    }
    if (!sp.empty()) l = splice(l, sp, rp);
  }
  return join(lines);
}

// ------------------------------------------------------------- cosmetic --

struct Noise {
  const char* name;
  std::string (*apply)(const std::string&);
};

inline std::vector<Noise> noises(Kind k) {
  switch (k) {
    case Kind::kMlir:
      return {{"rename", mlir_rename},
              {"renumber", mlir_renumber_aliases},
              {"locs", mlir_shuffle_locs},
              {"all", [](const std::string& t) {
                 return mlir_shuffle_locs(mlir_renumber_aliases(mlir_rename(t)));
               }}};
    case Kind::kLlvm:
      return {{"rename", llvm_rename},
              {"renumber", llvm_renumber_metadata},
              {"all", [](const std::string& t) { return llvm_renumber_metadata(llvm_rename(t)); }}};
    case Kind::kPtx: return {{"rename", ptx_rename}};
    case Kind::kAmdgcn: return {{"rename", amdgcn_rename}};
  }
  return {};
}

// ------------------------------------------------------------- mutations --

/// A real change and the 1-based lines it touched (0 = none on that side).
struct Mutation {
  std::string text;
  uint32_t removed_line = 0;  ///< In the original.
  uint32_t added_line = 0;    ///< In the mutated text.
};

/// Is this an op line inside a function body (not a label, directive,
/// declaration or comment)?
inline bool op_line(std::string_view l, Kind k, bool in_fn) {
  std::string_view t = trim_left(l);
  if (!in_fn || t.empty()) return false;
  switch (k) {
    case Kind::kMlir:
      return t[0] == '%' || (std::isalpha(static_cast<unsigned char>(t[0])) && t.find('.') != std::string_view::npos &&
                             !starts_with(t, "tt.func") && !starts_with(t, "func.func") &&
                             !starts_with(t, "llvm.func"));
    case Kind::kLlvm:
      if (t.find("@llvm.dbg.") != std::string_view::npos) return false;  // debug info: dropped
      return t[0] == '%' || starts_with(t, "store ") || starts_with(t, "call ") || starts_with(t, "tail call ");
    case Kind::kPtx:
    case Kind::kAmdgcn:
      return (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '@') && t.find(':') == std::string_view::npos &&
             t[0] != '.';
  }
  return false;
}

/// Which lines are inside a function body.
inline std::vector<bool> in_function(const std::vector<std::string>& lines, Kind k) {
  std::vector<bool> out(lines.size(), false);
  int depth = 0;
  bool fn = false;
  int fn_depth = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    std::string_view t = trim_left(l);
    if (k == Kind::kAmdgcn) {  // between `name:` and `.Lfunc_end`
      if (!t.empty() && t[0] != '.' && t[0] != ';' && t.find(':') != std::string_view::npos &&
          t.find(' ') == std::string_view::npos)
        fn = true;
      if (starts_with(t, ".Lfunc_end")) fn = false;
      out[i] = fn;
      continue;
    }
    int opens, closes, min_depth;
    braces(l, k, &opens, &closes, &min_depth);
    bool header = (k == Kind::kMlir && (t.find("tt.func") != std::string_view::npos ||
                                        t.find("func.func") != std::string_view::npos ||
                                        t.find("llvm.func") != std::string_view::npos)) ||
                  (k == Kind::kLlvm && starts_with(t, "define ")) ||
                  (k == Kind::kPtx && (t.find(".entry") != std::string_view::npos ||
                                       t.find(".func") != std::string_view::npos));
    if (header && !fn) {
      fn = true;
      fn_depth = depth;
    } else if (fn && depth > fn_depth) {
      out[i] = true;
    }
    depth += opens - closes;
    if (fn && depth <= fn_depth && (opens || closes)) fn = header && depth > fn_depth;
  }
  return out;
}

/// Integers of a line that are part of what it computes: not in strings,
/// comments, names (`%12`, `i32`, `!7`), MLIR `loc(...)` or LLVM `!dbg`.
inline std::vector<Span> integers(std::string_view l, Kind k) {
  std::vector<Span> out;
  size_t end = code_end(l, k);
  size_t loc = l.find("loc(");
  if (loc != std::string_view::npos && k == Kind::kMlir) end = std::min(end, loc);
  size_t dbg = l.find(", !dbg");
  if (dbg != std::string_view::npos && k == Kind::kLlvm) end = std::min(end, dbg);
  bool str = false;
  for (size_t i = 0; i < end; ++i) {
    if (in_string(l, &i, &str)) continue;
    char c = l[i];
    if (!std::isdigit(static_cast<unsigned char>(c))) continue;
    if (i > 0 && (name_char(l[i - 1]) || l[i - 1] == '%' || l[i - 1] == '!' || l[i - 1] == '#' ||
                  l[i - 1] == '^' || l[i - 1] == '@' || l[i - 1] == '+' ||
                  (l[i - 1] == '-' && i > 1 && (l[i - 2] == 'e' || l[i - 2] == 'E')))) {
      while (i < end && name_char(l[i])) ++i;  // a name or a word such as `i32`
      continue;
    }
    size_t j = i;
    while (j < end && std::isdigit(static_cast<unsigned char>(l[j]))) ++j;
    if (j < end && (name_char(l[j]) || l[j] == 'x' || l[j] == 'e' || l[j] == 'E')) {  // `0x1F`, `256xi32`, `1.5`, `1e3`
      i = j;
      while (i < end && name_char(l[i])) ++i;
      continue;
    }
    out.push_back({i, j});
    i = j;
  }
  return out;
}

/// One integer of the first op line that has one, plus 1.
inline std::optional<Mutation> change_constant(const std::string& text, Kind k) {
  std::vector<std::string> lines = lines_of(text);
  std::vector<bool> fn = in_function(lines, k);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!op_line(lines[i], k, fn[i])) continue;
    std::vector<Span> ints = integers(lines[i], k);
    if (ints.empty()) continue;
    const Span& s = ints.back();
    std::string digits = lines[i].substr(s.begin, s.end - s.begin);
    if (digits.size() > 15) continue;
    lines[i] = splice(lines[i], {s}, {std::to_string(std::stoll(digits) + 1)});
    return Mutation{join(lines), static_cast<uint32_t>(i + 1), static_cast<uint32_t>(i + 1)};
  }
  return std::nullopt;
}

/// The first op line that defines one value is repeated right after itself
/// with another result name.
inline std::optional<Mutation> insert_op(const std::string& text, Kind k) {
  std::vector<std::string> lines = lines_of(text);
  std::vector<bool> fn = in_function(lines, k);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!op_line(lines[i], k, fn[i])) continue;
    std::string l = lines[i];
    std::vector<Span> names = sigil_names(l, '%', k);
    if (names.empty()) continue;
    int opens, closes, min_depth;
    braces(l, k, &opens, &closes, &min_depth);
    if (opens || closes || std::count(l.begin(), l.end(), '(') != std::count(l.begin(), l.end(), ')'))
      continue;  // a line that opens or closes a region is not one op
    std::string copy;
    if (k == Kind::kMlir || k == Kind::kLlvm) {
      std::string_view t = trim_left(l);
      size_t eq = l.find(" = ");
      if (t[0] != '%' || eq == std::string::npos || names[0].end > eq || (names.size() > 1 && names[1].end <= eq))
        continue;
      if (l.find("phi ") != std::string::npos || l[names[0].end] == ':') continue;  // phis lead their block
      copy = splice(l, {names[0]}, {"%inserted_op"});
    } else if (k == Kind::kPtx) {
      std::string cls;
      long n;
      std::string_view first = std::string_view(l).substr(names[0].begin, names[0].end - names[0].begin);
      if (!ptx_vreg(first, &cls, &n) || trim_left(l)[0] == '@') continue;
      std::string_view op = trim_left(l);
      if (starts_with(op, "st") || starts_with(op, "bra") || starts_with(op, "bar") || starts_with(op, "ret"))
        continue;
      copy = splice(l, {names[0]}, {"%" + cls + "9" + std::to_string(n) + "9"});
    } else {
      continue;
    }
    lines.insert(lines.begin() + static_cast<long>(i) + 1, copy);
    return Mutation{join(lines), 0, static_cast<uint32_t>(i + 2)};
  }
  return std::nullopt;
}

/// The shape of a line for finding runs: names and (`numbers`) numbers masked.
inline std::string run_shape(std::string_view l, Kind k, bool numbers = true) {
  std::string out;
  std::string_view code = l.substr(0, code_end(l, k));
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (c == '%' || c == '^' || (numbers && std::isdigit(static_cast<unsigned char>(c)))) {
      out.push_back(c == '%' || c == '^' ? c : '9');
      size_t j = i + 1;
      while (j < code.size() && (c == '%' || c == '^' ? name_char(code[j]) : std::isdigit(static_cast<unsigned char>(code[j])) != 0)) ++j;
      i = j - 1;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

/// The middle line of the first run of at least `min_run` consecutive op
/// lines of one shape, deleted (`duplicate` false) or written twice.
inline std::optional<Mutation> run_mutation(const std::string& text, Kind k, bool duplicate,
                                            size_t min_run = 4) {
  std::vector<std::string> lines = lines_of(text);
  std::vector<bool> fn = in_function(lines, k);
  for (size_t i = 0; i < lines.size();) {
    if (!op_line(lines[i], k, fn[i])) {
      ++i;
      continue;
    }
    std::string shape = run_shape(lines[i], k);
    size_t j = i + 1;
    while (j < lines.size() && op_line(lines[j], k, fn[j]) && run_shape(lines[j], k) == shape) ++j;
    if (j - i >= min_run) {
      size_t mid = i + (j - i) / 2;
      if (duplicate) {
        lines.insert(lines.begin() + static_cast<long>(mid) + 1, lines[mid]);
        return Mutation{join(lines), 0, static_cast<uint32_t>(mid + 2)};
      }
      lines.erase(lines.begin() + static_cast<long>(mid));
      return Mutation{join(lines), static_cast<uint32_t>(mid + 1), 0};
    }
    i = j;
  }
  return std::nullopt;
}

}  // namespace ksnap::testing::perturb
