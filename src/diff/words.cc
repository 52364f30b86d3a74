#include "diff/words.h"

#include "diff/align.h"
#include "ksnap/support/hash.h"

namespace ksnap::diff {

namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '%' || c == '#' || c == '$' || c == '@' || c == '!' || c == '^' ||
         c == '-';
}

std::vector<Span> split_words(std::string_view s) {
  std::vector<Span> out;
  uint32_t i = 0, n = static_cast<uint32_t>(s.size());
  while (i < n) {
    char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    uint32_t j = i + 1;
    if (is_word_char(c))
      while (j < n && is_word_char(s[j])) ++j;
    out.push_back(Span{i, j});
    i = j;
  }
  return out;
}

// Appends `s`, joining it to the previous span when only blanks separate them.
void merge_into(std::string_view text, std::vector<Span>* out, Span s) {
  bool join = !out->empty();
  for (uint32_t k = join ? out->back().end : 0; join && k < s.begin; ++k)
    join = text[k] == ' ' || text[k] == '\t';
  if (join) {
    out->back().end = s.end;
  } else {
    out->push_back(s);
  }
}

}  // namespace

void word_highlights(std::string_view old_text, std::string_view new_text,
                     std::vector<Span>* old_spans, std::vector<Span>* new_spans,
                     size_t max_words) {
  std::vector<Span> ow = split_words(old_text), nw = split_words(new_text);
  if (ow.size() > max_words || nw.size() > max_words) {
    if (!old_text.empty()) old_spans->push_back(Span{0, static_cast<uint32_t>(old_text.size())});
    if (!new_text.empty()) new_spans->push_back(Span{0, static_cast<uint32_t>(new_text.size())});
    return;
  }
  std::vector<uint64_t> ok, nk;
  ok.reserve(ow.size());
  nk.reserve(nw.size());
  for (Span s : ow) ok.push_back(hash64(old_text.substr(s.begin, s.end - s.begin)));
  for (Span s : nw) nk.push_back(hash64(new_text.substr(s.begin, s.end - s.begin)));
  std::vector<Match> m = align(ok, nk);
  size_t mi = 0;
  std::vector<bool> okeep(ow.size(), false), nkeep(nw.size(), false);
  for (; mi < m.size(); ++mi) {
    okeep[m[mi].first] = true;
    nkeep[m[mi].second] = true;
  }
  for (size_t i = 0; i < ow.size(); ++i)
    if (!okeep[i]) merge_into(old_text, old_spans, ow[i]);
  for (size_t i = 0; i < nw.size(); ++i)
    if (!nkeep[i]) merge_into(new_text, new_spans, nw[i]);
}

}  // namespace ksnap::diff
