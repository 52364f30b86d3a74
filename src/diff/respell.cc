// The structural diff's printer; the worked example is in respell.h.
#include "diff/respell.h"

namespace ksnap::diff {

using norm::Line;

std::string respell(std::string_view occ, std::string_view own, std::string_view name) {
  size_t at = own.empty() ? std::string_view::npos : occ.find(own);
  if (at == std::string_view::npos) return std::string(name);
  std::string out(occ.substr(0, at));
  out += name;
  out += occ.substr(at + own.size());
  return out;
}

std::string head_mark(std::string_view name) {
  size_t at = 0;
  while (at < name.size() && (name[at] == '%' || name[at] == '^' || name[at] == '#' ||
                              name[at] == '!' || name[at] == '"' || name[at] == '@'))
    ++at;
  return std::string(name.substr(0, at)) + "h_" + std::string(name.substr(at));
}

std::vector<Span> map_spans(const std::vector<Span>& spans, const std::vector<Substitution>& subs) {
  auto map = [&subs](uint32_t x, bool end) {
    int64_t delta = 0;
    for (const Substitution& s : subs) {
      if (x < s.out) break;
      if (x >= s.out + s.out_len) {
        delta = int64_t{s.head} + s.head_len - (int64_t{s.out} + s.out_len);
        continue;
      }
      return x == s.out ? s.head : end ? s.head + s.head_len : s.head;
    }
    return static_cast<uint32_t>(x + delta);
  };
  std::vector<Span> out;
  for (const Span& s : spans) {
    Span m{map(s.begin, false), map(s.end, true)};
    if (m.end > m.begin) out.push_back(m);
  }
  return out;
}

Respelled HeadSpeller::renamed(const Line& l) const {
  Respelled r;
  r.text.reserve(l.display.size() + 16);
  size_t pos = 0;
  for (const auto& s : l.symbols) {
    if (s.offset < pos || s.offset + s.length > l.display.size()) continue;
    append_unnamed(l.display, pos, s.offset, &r);
    std::string_view occ(l.display.data() + s.offset, s.length);
    std::string_view own = head_.symbols[s.id].name;
    int32_t b = map_[s.id];
    std::string spelled(occ);
    if (b >= 0)
      spelled = respell(occ, own, base_.symbols[b].name);
    else if (claimed_as_any(own))
      spelled = respell(occ, own, head_mark(own));
    if (spelled != occ)
      r.subs.push_back({static_cast<uint32_t>(r.text.size()), static_cast<uint32_t>(spelled.size()),
                        s.offset, s.length});
    r.text += spelled;
    pos = s.offset + s.length;
  }
  append_unnamed(l.display, pos, l.display.size(), &r);
  return r;
}
bool HeadSpeller::claimed_as_any(std::string_view own) const {
  if (claimed_.claimed(own)) return true;
  if (own.empty()) return false;
  if (own[0] == '%') return claimed_.claimed(own.substr(1));
  return own[0] != '@' && claimed_.claimed("%" + std::string(own));
}

void HeadSpeller::append_unnamed(std::string_view text, size_t from, size_t to,
                                 Respelled* r) const {
  auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '$' || c == '-';
  };
  size_t done = from;
  for (size_t i = from; i < to; ++i) {
    char c = text[i];
    if (c == '"') {  // a string: `asm "mov.u32 %0, ..."` names nothing
      size_t q = text.find('"', i + 1);
      i = q == std::string_view::npos || q >= to ? to : q;
      continue;
    }
    if ((c != '%' && c != '@') || (i > 0 && name_char(text[i - 1])) || claimed_.unit_none())
      continue;
    size_t j = i + 1;
    if (j < to && text[j] == '"') {
      size_t q = text.find('"', j + 1);
      j = q == std::string_view::npos || q >= to ? to : q + 1;
    } else {
      while (j < to && name_char(text[j])) ++j;
    }
    std::string_view name(text.data() + i, j - i);
    if (j > i + 1 && (claimed_.unit_claimed(name) || claimed_.unit_claimed(name.substr(1)))) {
      r->text.append(text, done, i - done);
      std::string marked = head_mark(name);
      r->subs.push_back({static_cast<uint32_t>(r->text.size()),
                         static_cast<uint32_t>(marked.size()), static_cast<uint32_t>(i),
                         static_cast<uint32_t>(j - i)});
      r->text += marked;
      done = j;
    }
    i = j - 1;
  }
  r->text.append(text, done, to - done);
}

}  // namespace ksnap::diff
