#include "doctor_render.hpp"

#include <string>

#include "log/json_escape.hpp"

namespace gpufl::cli {
namespace {

using doctor::Diagnosis;
using doctor::DoctorFacts;
using doctor::LibraryFinding;

std::string where(const LibraryFinding& f) {
  if (!f.found) return "not found: " + f.error;
  std::string s = f.path;
  if (!f.origin.empty()) s += " (" + f.origin + ")";
  return s;
}

std::string countersLine(const doctor::PermissionFacts& p) {
  std::string admin = p.cap_sys_admin ? "this process is admin (CAP_SYS_ADMIN)"
                                      : (p.root ? "this process is root without CAP_SYS_ADMIN"
                                                : "this process is not admin (no CAP_SYS_ADMIN)");
  if (p.profiling_admin_only == false) return "open to every user (RmProfilingAdminOnly: 0)";
  if (p.profiling_admin_only == true)
    return "restricted to admin users (RmProfilingAdminOnly: 1); " + admin;
  return "restriction unknown (/proc/driver/nvidia/params unreadable); " + admin;
}

// JSON output through one small writer: `"key":value` pairs, strings escaped by the log's escaper.
class Json {
 public:
  explicit Json(std::string& out) : out_(out) {}
  Json& open(const char* key = nullptr, char bracket = '{') {
    sep(key);
    out_ += bracket;
    first_ = true;
    return *this;
  }
  Json& close(char bracket = '}') {
    out_ += bracket;
    first_ = false;
    return *this;
  }
  Json& str(const char* key, const std::string& v) {
    sep(key);
    log::appendJsonString(out_, v);
    return *this;
  }
  Json& num(const char* key, long long v) {
    sep(key);
    out_ += std::to_string(v);
    return *this;
  }
  Json& boolean(const char* key, bool v) {
    sep(key);
    out_ += v ? "true" : "false";
    return *this;
  }
  Json& null(const char* key) {
    sep(key);
    out_ += "null";
    return *this;
  }

 private:
  void sep(const char* key) {
    if (!first_) out_ += ',';
    first_ = false;
    if (key != nullptr) {
      log::appendJsonString(out_, key);
      out_ += ':';
    }
  }
  std::string& out_;
  bool first_ = true;
};

}  // namespace

void renderDoctorText(std::ostream& out, const DoctorFacts& f, const Diagnosis& d) {
  auto row = [&](const char* label, const std::string& text) {
    out << "  " << label << std::string(14 - std::string(label).size(), ' ') << text << "\n";
  };
  out << "gpufl doctor (gpufl " << f.build.gpufl_version << ")\n";
  row("build", std::string("CUDA backend ") + (f.build.cuda_backend ? "built" : "NOT built") +
                   "; headers: " + f.build.headers_from);
  std::string driver = where(f.driver.library);
  if (f.driver.library.found) {
    std::string v = f.driver.release.empty() ? "" : f.driver.release;
    if (f.driver.cuda_version > 0)
      v += (v.empty() ? "" : ", ") + std::string("CUDA ") +
           doctor::cudaVersionText(f.driver.cuda_version);
    driver = (v.empty() ? "" : v + ": ") + driver;
    if (!f.driver.init_error.empty()) driver += "; cuInit failed: " + f.driver.init_error;
  }
  row("driver", driver);
  if (f.driver.library.found && f.driver.init_error.empty()) {
    std::string gpus;
    for (size_t i = 0; i < f.driver.gpus.size(); ++i)
      gpus += (i ? ", " : "") + std::to_string(i) + ": " + f.driver.gpus[i].name + " (sm_" +
              std::to_string(f.driver.gpus[i].cc_major) +
              std::to_string(f.driver.gpus[i].cc_minor) + ")";
    row("GPUs", gpus.empty() ? "none" : gpus);
  }
  std::string cupti = where(f.cupti.library);
  if (f.cupti.library.found && f.cupti.api_version != 0)
    cupti = "CUPTI " + doctor::cuptiVersionText(f.cupti.api_version) + ": " + cupti;
  row("libcupti", cupti);
  row("libnvidia-ml",
      (f.nvml.found && !f.nvml.version.empty() ? f.nvml.version + ": " : "") + where(f.nvml));
  row("counters", countersLine(f.permissions));
  if (!f.permissions.container.empty()) row("container", f.permissions.container);
  row("injection", f.kernels_tried ? "a tiny kernel under gpufl trace with each engine (below)"
                                   : "not tried: " + f.kernels_skipped);
  for (const auto& p : d.problems) out << "  ! " << p.what << "\n      fix: " << p.fix << "\n";
  out << "\n  engine              verdict   why, and what to change\n";
  for (const auto& e : d.engines) {
    std::string text = e.reason + (e.fix.empty() ? "" : "; " + e.fix);
    // What refuses every engine is said once, on None's line.
    const auto& none = d.engines.front();
    if (&e != &none && e.verdict == none.verdict && e.reason == none.reason && e.fix == none.fix)
      text = "as None";
    out << "  " << e.engine << std::string(20 - e.engine.size(), ' ')
        << doctor::verdictName(e.verdict)
        << std::string(10 - std::string(doctor::verdictName(e.verdict)).size(), ' ') << text
        << "\n";
  }
  out << "\nverdict: " << d.summary << "\n";
}

void renderDoctorJson(std::ostream& out, const DoctorFacts& f, const Diagnosis& d) {
  std::string s;
  Json j(s);
  j.open().str("gpufl_version", f.build.gpufl_version);
  j.open("build")
      .boolean("cuda_backend", f.build.cuda_backend)
      .str("headers_from", f.build.headers_from)
      .close();
  j.open("driver")
      .boolean("found", f.driver.library.found)
      .str("path", f.driver.library.path)
      .str("release", f.driver.release)
      .num("cuda_version", f.driver.cuda_version)
      .str("init_error", f.driver.init_error)
      .str("error", f.driver.library.error);
  j.open("gpus", '[');
  for (const auto& g : f.driver.gpus)
    j.open()
        .str("name", g.name)
        .str("compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor))
        .close();
  j.close(']').close();
  const LibraryFinding& c = f.cupti.library;
  j.open("cupti")
      .boolean("found", c.found)
      .str("path", c.path)
      .str("origin", c.origin)
      .str("error", c.error)
      .num("api_version", f.cupti.api_version)
      .str("package_version", f.cupti.package_version)
      .open("engine_missing");
  for (const auto& [engine, why] : f.cupti.engine_missing) j.str(engine.c_str(), why);
  j.close().close();
  j.open("nvml")
      .boolean("found", f.nvml.found)
      .str("path", f.nvml.path)
      .str("version", f.nvml.version)
      .str("error", f.nvml.error)
      .close();
  j.open("permissions");
  if (f.permissions.profiling_admin_only)
    j.boolean("profiling_admin_only", *f.permissions.profiling_admin_only);
  else
    j.null("profiling_admin_only");
  j.boolean("root", f.permissions.root)
      .boolean("cap_sys_admin", f.permissions.cap_sys_admin)
      .str("container", f.permissions.container)
      .close();
  j.open("injection")
      .boolean("tried", f.kernels_tried)
      .str("skipped", f.kernels_skipped)
      .open("runs", '[');
  for (const auto& r : f.runs) {
    j.open()
        .str("engine", r.engine)
        .boolean("ran", r.ran)
        .str("error", r.error)
        .num("kernels", static_cast<long long>(r.kernels));
    j.open("notes");
    for (const auto& [feature, note] : r.notes)
      j.open(feature.c_str()).str("status", note.first).str("reason", note.second).close();
    j.close().close();
  }
  j.close(']').close();
  j.open("problems", '[');
  for (const auto& p : d.problems) j.open().str("what", p.what).str("fix", p.fix).close();
  j.close(']');
  j.open("engines", '[');
  for (const auto& e : d.engines)
    j.open()
        .str("engine", e.engine)
        .str("verdict", doctor::verdictName(e.verdict))
        .str("reason", e.reason)
        .str("fix", e.fix)
        .close();
  j.close(']');
  j.str("summary", d.summary).close();
  out << s << "\n";
}

}  // namespace gpufl::cli
