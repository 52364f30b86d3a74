// ksnap explain: which compiler pass made one variant differ between two
// builds. A thin front end: it picks the variant (the diff's pairing), runs
// the Python plugin once per side to rebuild it with IR dumped after every
// pass (`python -m ksnap_triton explain-compile`, docs/recompile.md), and
// hands the two dump streams to diff::explain_passes:
//
//   ksnap explain ci/main ci/pr --variant 'matmul_kernel {BLOCK_SIZE_M=128'
//   => per side, in parallel:
//      python -c <isolated plugin> explain-compile CAPTURE --cache-dir D --kernel K
//             -o WORK/base [--python P] [--env DISABLE_MMA_V3=true] [--unset K]
//   => first difference: tritongpu-accelerate-matmul (TritonGPUAccelerateMatmul, MLIR) ...
//
// Each side compiles under its own interpreter (--base-python/--head-python,
// default $KSNAP_PYTHON or python3) and its own recorded environment: the
// Triton knobs its variant's metadata lists (Triton writes every set
// cache-invalidating variable, e.g. "DISABLE_MMA_V3": "true", into
// <kernel>.json), a knob only the other side recorded unset, plus
// --base-env/--head-env. With --base-dump/--head-dump it compares two dump
// streams the user already has and compiles nothing.
//
// Exit status: 0 (a pass named, or none differs); 1 a pass differs and
// --exit-code was given; 2 usage or input error, or a side failed to compile.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.h"
#include "ksnap/build/build.h"
#include "ksnap/diff/explain.h"
#include "ksnap/diff/pairing.h"
#include "ksnap/render/render.h"
#include "ksnap/support/file.h"
#include "ksnap/support/json.h"
#include "ksnap/support/text.h"

namespace ksnap::cli {

namespace {

namespace fs = std::filesystem;

struct ExplainFlags {
  std::string base, head, variant, base_dump, head_dump, base_python, head_python, keep;
  std::string format = "text";
  std::vector<std::string> base_env, head_env, trusted_modules;
  unsigned pick = 0, context = 3, max_lines = 200;
  double timeout = 900;
  bool exit_code = false;
};

/// One side: what it compiles and how.
struct Side {
  const char* name = "";  // "BASE" / "HEAD"
  std::string capture, python, dump_path, kernel, cache_dir;
  std::map<std::string, std::string> env;  // set
  std::vector<std::string> unset;
  std::string triton_version;
  double compile_s = -1;
};

std::string unquote(const std::string& json_text) {
  nlohmann::json v = json::parse_or_string(json_text);
  return v.is_string() ? v.get<std::string>() : json_text;
}

/// `{A=1, B=2} [num_warps=4]`.
std::string config_text(const build::Variant& v) {
  auto join = [](const std::map<std::string, std::string>& m) {
    std::string s;
    for (const auto& [k, val] : m) s += (s.empty() ? "" : ", ") + k + "=" + unquote(val);
    return s;
  };
  std::string out = "{" + join(v.constexprs) + "}";
  if (!v.options.empty()) out += " [" + join(v.options) + "]";
  return out;
}

std::string fixed1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

bool is_env_name(const std::string& k) {
  if (k.empty() || !(k[0] >= 'A' && k[0] <= 'Z')) return false;
  for (char c : k)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

/// The environment knobs Triton recorded in the variant's metadata.
std::map<std::string, std::string> recorded_env(const build::Variant& v) {
  std::map<std::string, std::string> out;
  for (const auto& [k, val] : v.compile_options)
    if (is_env_name(k)) out[k] = unquote(val);
  return out;
}

Status add_env(const std::vector<std::string>& flags, const char* flag,
               std::map<std::string, std::string>* env) {
  for (const std::string& kv : flags) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error(ErrorCode::kInvalidArgument,
                        std::string(flag) + " '" + kv + "': expected NAME=VALUE");
    (*env)[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return Status::ok();
}

/// Picks the paired variant `text` names: the id, or a substring of
/// "kernel {constexprs} [options]"; among several, those whose stage files
/// differ in bytes; then --pick N (1-based) of what is left.
Expected<std::pair<const build::Variant*, const build::Variant*>> pick_variant(
    const build::Build& b, const build::Build& h, const ExplainFlags& f) {
  std::vector<std::pair<const build::Variant*, const build::Variant*>> found;
  for (const diff::VariantPair& p : diff::pair_variants(b, h)) {
    if (p.base < 0 || p.head < 0) continue;
    const build::Variant& v = b.variants[p.base];
    std::string shown = v.kernel + " " + config_text(v);
    if (v.id() == f.variant || v.kernel == f.variant || shown.find(f.variant) != std::string::npos)
      found.push_back({&v, &h.variants[p.head]});
  }
  if (found.empty())
    return make_error(ErrorCode::kNotFound,
                      "--variant '" + f.variant + "': no variant of both builds matches");
  if (found.size() > 1) {
    std::vector<std::pair<const build::Variant*, const build::Variant*>> differ;
    for (const auto& pr : found) {
      bool d = pr.first->stages.size() != pr.second->stages.size();
      for (const build::StageFile& s : pr.first->stages) {
        const build::StageFile* o = pr.second->stage(s.stage);
        if (d || !o) {
          d = true;
          break;
        }
        auto x = build::read_stage(s);
        auto y = build::read_stage(*o);
        if (!x || !y || x->view() != y->view()) d = true;
      }
      if (d) differ.push_back(pr);
    }
    if (!differ.empty()) found = differ;
  }
  if (f.pick) {
    if (f.pick > found.size())
      return make_error(ErrorCode::kInvalidArgument, "--pick " + std::to_string(f.pick) +
                                                         ": only " + std::to_string(found.size()) +
                                                         " variants match");
    return found[f.pick - 1];
  }
  if (found.size() == 1) return found[0];
  std::string list;
  for (size_t i = 0; i < found.size() && i < 20; ++i)
    list += "\n  " + std::to_string(i + 1) + ". " + found[i].first->kernel + " " +
            config_text(*found[i].first) + " " + found[i].first->signature;
  return make_error(ErrorCode::kInvalidArgument,
                    "--variant '" + f.variant + "' matches " + std::to_string(found.size()) +
                        " variants (those whose IR differs); add --pick N:" + list);
}

std::vector<std::string> plugin_args(const Side& s, const std::string& out, const ExplainFlags& f) {
  std::vector<std::string> a = {
      "explain-compile", s.capture, "--cache-dir", s.cache_dir, "--kernel",
      s.kernel,          "-o",      out,           "--timeout", std::to_string(f.timeout)};
  if (!s.python.empty()) a.insert(a.end(), {"--python", s.python});
  for (const auto& [k, v] : s.env) a.insert(a.end(), {"--env", k + "=" + v});
  for (const std::string& k : s.unset) a.insert(a.end(), {"--unset", k});
  for (const std::string& m : f.trusted_modules) a.insert(a.end(), {"--trust-module", m});
  return a;
}

/// Reads `OUT/explain.json` of one side: the Triton version and compile time.
void read_side_report(const std::string& dir, Side* s) {
  auto t = read_text_file(dir + "/explain.json");
  if (!t) return;
  auto v = json::parse(t->view(), dir + "/explain.json");
  if (!v || !v->is_object()) return;
  if (auto it = v->find("triton_version"); it != v->end() && it->is_string())
    s->triton_version = it->get<std::string>();
  if (auto it = v->find("compile_s"); it != v->end() && it->is_number())
    s->compile_s = it->get<double>();
}

/// Rebuilds both sides with dumps on (two plugin processes at once).
Status compile_sides(Side* b, Side* h, const std::string& work, const ExplainFlags& f) {
  long pb = start_plugin(plugin_args(*b, work + "/base", f), PluginInput::kUntrustedCapture);
  long ph = start_plugin(plugin_args(*h, work + "/head", f), PluginInput::kUntrustedCapture);
  int rb = wait_plugin(pb), rh = wait_plugin(ph);
  for (auto [s, rc, dir] : {std::tuple{b, rb, work + "/base"}, std::tuple{h, rh, work + "/head"}}) {
    if (rc != 0)
      return make_error(ErrorCode::kUnavailable,
                        std::string(s->name) + " did not compile (exit status " +
                            std::to_string(rc) + "; the plugin's message is above)");
    s->dump_path = dir + "/passes.log";
    read_side_report(dir, s);
  }
  return Status::ok();
}

/// "DISABLE_MMA_V3=true" / "none (DISABLE_MMA_V3 unset)".
std::string env_text(const Side& s) {
  std::string set, unset;
  for (const auto& [k, v] : s.env) set += (set.empty() ? "" : " ") + k + "=" + v;
  for (const std::string& k : s.unset) unset += (unset.empty() ? "" : " ") + k;
  std::string out = set.empty() ? "none" : set;
  if (!unset.empty()) out += " (" + unset + " unset)";
  return out;
}

std::string render_text(const diff::ExplainResult& r, const Side& b, const Side& h,
                        const std::string& title, const ExplainFlags& f, bool color, double wall) {
  std::string out = escape_control(title) + "\n";
  for (const Side* s : {&b, &h}) {
    out += "  " + std::string(s->name) + ": ";
    if (!s->cache_dir.empty()) {
      const char* env_python = std::getenv("KSNAP_PYTHON");
      out += !s->python.empty() ? s->python : env_python && *env_python ? env_python : "python3";
      if (!s->triton_version.empty()) out += " (Triton " + s->triton_version + ")";
      out += ", environment " + env_text(*s) + ", ";
    }
    out += std::to_string(s == &b ? r.base_snapshots : r.head_snapshots) + " pass outputs";
    if (s->compile_s >= 0) out += ", compiled in " + fixed1(s->compile_s) + " s";
    out += "\n";
  }
  if (!r.found) {
    out += "No pass output differs (" + std::to_string(r.equal_before) +
           " compared equal after normalization)";
    out += r.base_snapshots == 0 && r.head_snapshots == 0
               ? ": the dumps hold no pass output (was the variant compiled with dumps on?)\n"
               : "; a difference, if any, comes after the last printed pass (ptxas, the "
                 "assembler).\n";
  } else {
    out += "First difference: " + escape_control(r.label);
    if (!r.entry)
      out += " (" + escape_control(r.pass) + ", " + diff::dump_dialect_name(r.dialect) + ")";
    out += "\n  ";
    if (r.entry)
      out +=
          "the IR differs before that pass runs (from outside any printed pass: the "
          "frontend or a translation)";
    else if (r.only_in)
      out += std::string("the pass ran only in ") + (r.only_in < 0 ? "BASE" : "HEAD") +
             " and changed the IR; shown: its input against its output";
    else if (r.inputs_equal)
      out += "its input is the same on both sides" +
             (r.previous_label.empty() ? std::string()
                                       : " (after " + escape_control(r.previous_label) + ")") +
             "; its output differs";
    else
      out += "its output differs (its input is not in both dumps)";
    if (r.base_line) out += "; BASE dump line " + std::to_string(r.base_line);
    if (r.head_line)
      out +=
          std::string(r.base_line ? "," : ";") + " HEAD dump line " + std::to_string(r.head_line);
    out += "\n";
    out += "  +" + std::to_string(r.diff.lines_added) + " -" +
           std::to_string(r.diff.lines_removed) + " lines";
    if (!r.diff.op_deltas.empty()) {
      out += "; ops:";
      size_t n = 0;
      for (const auto& [op, d] : r.diff.op_deltas) {
        if (n++ == 8) {
          out += " …";
          break;
        }
        out += std::string(" ") + (d > 0 ? "+" : "") + std::to_string(d) + " " + escape_control(op);
      }
    }
    out += "\n";
    if (!r.diff.fallback.empty()) out += "  note: " + escape_control(r.diff.fallback) + "\n";
    render::WriteOptions w;
    w.color = color;
    out += render::render_hunks(report::cut_hunks(r.diff, report::kUnlimited, f.max_lines), w);
  }
  for (const std::string& n : r.notes) out += "note: " + escape_control(n) + "\n";
  out += "explain took " + fixed1(wall) + " s\n";
  return out;
}

std::string render_json(const diff::ExplainResult& r, const Side& b, const Side& h,
                        const std::string& variant, double wall) {
  nlohmann::json j;
  j["schema"] = "ksnap-explain";
  j["schema_version"] = 1;
  j["variant"] = variant;
  for (const Side* s : {&b, &h}) {
    nlohmann::json o;
    o["capture"] = s->capture;
    o["dump"] = s->dump_path;
    o["python"] = s->python.empty() ? nlohmann::json() : nlohmann::json(s->python);
    o["triton_version"] =
        s->triton_version.empty() ? nlohmann::json() : nlohmann::json(s->triton_version);
    o["environment"] = s->env;
    o["unset"] = s->unset;
    o["compile_s"] = s->compile_s >= 0 ? nlohmann::json(s->compile_s) : nlohmann::json();
    o["pass_outputs"] = s == &b ? r.base_snapshots : r.head_snapshots;
    j[s == &b ? "base" : "head"] = o;
  }
  j["found"] = r.found;
  j["equal_before"] = r.equal_before;
  j["aligned"] = r.aligned;
  if (r.found) {
    nlohmann::json p;
    p["label"] = r.label;
    p["pass"] = r.pass;
    p["argument"] = r.argument;
    p["dialect"] = diff::dump_dialect_name(r.dialect);
    p["entry"] = r.entry;
    p["only_in"] = r.only_in < 0   ? nlohmann::json("base")
                   : r.only_in > 0 ? nlohmann::json("head")
                                   : nlohmann::json();
    p["inputs_equal"] = r.inputs_equal;
    p["previous"] = r.previous_label;
    p["base_line"] = r.base_line;
    p["head_line"] = r.head_line;
    p["lines_added"] = r.diff.lines_added;
    p["lines_removed"] = r.diff.lines_removed;
    p["op_deltas"] = r.diff.op_deltas;
    p["fallback"] = r.diff.fallback;
    nlohmann::json hunks = nlohmann::json::array();
    for (const diff::Hunk& hk : r.diff.hunks) {
      nlohmann::json lines = nlohmann::json::array();
      for (const diff::DiffLine& l : hk.lines)
        lines.push_back({{"kind", l.kind == diff::LineKind::kAdded     ? "added"
                                  : l.kind == diff::LineKind::kRemoved ? "removed"
                                                                       : "context"},
                         {"text", l.text}});
      hunks.push_back({{"unit", hk.unit},
                       {"base_start", hk.base_start},
                       {"base_count", hk.base_count},
                       {"head_start", hk.head_start},
                       {"head_count", hk.head_count},
                       {"lines", lines}});
    }
    p["hunks"] = hunks;
    j["first_difference"] = p;
  } else {
    j["first_difference"] = nullptr;
  }
  j["notes"] = r.notes;
  j["wall_s"] = wall;
  return json::dump(std::move(j), 1) + "\n";
}

Expected<std::vector<diff::PassDump>> load_dumps(const std::string& path) {
  auto t = read_text_file(path);
  if (!t) return t.status();
  return diff::parse_pass_dumps(t->view(), path);
}

int run_explain(const ExplainFlags& f) {
  auto t0 = std::chrono::steady_clock::now();
  if (f.format != "text" && f.format != "json")
    return report_error(make_error(ErrorCode::kInvalidArgument,
                                   "--format '" + f.format + "': expected text or json"));
  Side b, h;
  b.name = "BASE";
  h.name = "HEAD";
  std::string title, work, variant_text;
  bool dumps_given = !f.base_dump.empty() || !f.head_dump.empty();
  if (dumps_given) {
    if (f.base_dump.empty() || f.head_dump.empty())
      return report_error(
          make_error(ErrorCode::kInvalidArgument, "--base-dump and --head-dump go together"));
    b.dump_path = f.base_dump;
    h.dump_path = f.head_dump;
    title = "ksnap explain " + f.base_dump + " → " + f.head_dump;
  } else {
    if (f.base.empty() || f.head.empty() || f.variant.empty())
      return report_error(
          make_error(ErrorCode::kInvalidArgument,
                     "give BASE HEAD --variant V (or --base-dump FILE --head-dump FILE)"));
    auto bb = build::load_build(f.base);
    if (!bb) return report_error(bb.status());
    auto hb = build::load_build(f.head);
    if (!hb) return report_error(hb.status());
    auto picked = pick_variant(*bb, *hb, f);
    if (!picked) return report_error(picked.status());
    const auto [vb, vh] = *picked;
    variant_text = vb->kernel + " " + config_text(*vb);
    title = "ksnap explain " + bb->name + " → " + hb->name + ": " + variant_text;
    for (auto [s, v, cap, py, flags, flag] :
         {std::tuple{&b, vb, f.base, f.base_python, &f.base_env, "--base-env"},
          std::tuple{&h, vh, f.head, f.head_python, &f.head_env, "--head-env"}}) {
      s->capture = cap;
      s->python = py;
      s->kernel = v->kernel;
      s->cache_dir = v->cache_dir;
      s->env = recorded_env(*v);
      if (Status st = add_env(*flags, flag, &s->env); !st) return report_error(st);
    }
    for (auto [s, o] : {std::pair{&b, &h}, std::pair{&h, &b}})
      for (const auto& [k, v] : o->env)
        if (!s->env.count(k)) s->unset.push_back(k);
    if (!f.keep.empty()) {
      std::error_code ec;
      fs::create_directories(f.keep, ec);
      work = fs::absolute(f.keep).string();
    } else {
      std::string tmpl = (fs::temp_directory_path() / "ksnap-explain-XXXXXX").string();
      if (!::mkdtemp(tmpl.data()))
        return report_error(make_error(ErrorCode::kIoError, "cannot make a temporary folder"));
      work = tmpl;
    }
    Status st = compile_sides(&b, &h, work, f);
    if (!st) {
      if (f.keep.empty()) fs::remove_all(work);
      return report_error(st);
    }
  }
  auto db = load_dumps(b.dump_path);
  auto dh = load_dumps(h.dump_path);
  if (!db || !dh) {
    if (!dumps_given && f.keep.empty()) fs::remove_all(work);
    return report_error(db ? dh.status() : db.status());
  }
  diff::ExplainOptions eo;
  eo.structural.kept_context = f.context;
  diff::ExplainResult r = diff::explain_passes(*db, *dh, eo);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!dumps_given && f.keep.empty()) {
    fs::remove_all(work);
    b.dump_path.clear();
    h.dump_path.clear();
  }
  bool color = f.format == "text" && ::isatty(1) && !std::getenv("NO_COLOR");
  std::string out = f.format == "json" ? render_json(r, b, h, variant_text, wall)
                                       : render_text(r, b, h, title, f, color, wall);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return f.exit_code && r.found ? kExitDifferences : kExitOk;
}

}  // namespace

void register_explain_command(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<ExplainFlags>();
  CLI::App* c = app.add_subcommand(
      "explain",
      "Name the first compiler pass whose output differs for one variant: rebuild it under "
      "each side's compiler with IR dumped after every pass, normalize, compare in order");
  c->add_option("base", f->base, "BASE capture folder");
  c->add_option("head", f->head, "HEAD capture folder");
  c->add_option("--variant", f->variant,
                "The variant: its kernel name, id, or a part of 'kernel {constexprs} [options]'");
  c->add_option("--pick", f->pick, "Of several matching variants, the N-th listed (1-based)");
  c->add_option("--base-python", f->base_python,
                "Interpreter whose Triton rebuilds BASE (default: $KSNAP_PYTHON, else python3)");
  c->add_option("--head-python", f->head_python, "Interpreter whose Triton rebuilds HEAD");
  c->add_option("--base-env", f->base_env,
                "NAME=VALUE set for BASE's compile, over what its metadata recorded (repeatable)");
  c->add_option("--head-env", f->head_env, "NAME=VALUE set for HEAD's compile (repeatable)");
  c->add_option("--base-dump", f->base_dump, "Compare this dump stream (no compile)");
  c->add_option("--head-dump", f->head_dump, "HEAD's dump stream, with --base-dump");
  c->add_option("--keep", f->keep, "Keep the dumps and rebuilt files in this folder");
  c->add_option("--format", f->format, "text (default) or json");
  c->add_option("--context", f->context, "Context lines around each change (default 3)");
  c->add_option("--max-lines", f->max_lines, "Diff lines shown in text (default 200)");
  c->add_option("--timeout", f->timeout, "Seconds one side may compile (default 900; 0: none)");
  c->add_option("--trust-module", f->trusted_modules,
                "A kernel library the capture used (as for recompile; repeatable)");
  c->add_flag("--exit-code", f->exit_code, "Exit 1 when a pass output differs");
  c->footer(
      "Examples:\n"
      "  ksnap explain base launch-disable-mma-v3 --variant matmul_kernel --pick 1\n"
      "  ksnap explain ci/main ci/main --variant attn_fwd --head-python "
      "/opt/triton-next/bin/python\n"
      "  ksnap explain --base-dump a.log --head-dump b.log");
  c->callback([f, &ctx] { ctx.exit_code = run_explain(*f); });
}

}  // namespace ksnap::cli
