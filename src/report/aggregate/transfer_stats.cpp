#include "report/aggregate/transfer_stats.hpp"

#include <algorithm>

#include "core/checked_math.hpp"
namespace gpufl::report {
namespace {

void finishStats(TransferStats& s) {
  s.throughput_bps =
      s.total_ns > 0 ? static_cast<double>(s.bytes) * 1e9 / static_cast<double>(s.total_ns) : 0;
}

// Display order: the directions people look for first.
constexpr CopyKind kOrder[] = {CopyKind::HtoD, CopyKind::DtoH, CopyKind::DtoD,
                               CopyKind::HtoH, CopyKind::PtoP, CopyKind::Unknown};

}  // namespace

void TransferAggregator::onMemcpy(const MemcpyEvent& e) {
  const int64_t dur = spanNs(e.start_ns, e.end_ns);
  TransferStats& s = e.is_memset ? memsets_ : copies_[static_cast<size_t>(e.kind)];
  ++s.count;
  s.bytes += e.bytes;
  s.total_ns = satAdd(s.total_ns, dur);
  if (!e.is_memset && (e.src_kind == "pageable" || e.dst_kind == "pageable")) {
    ++s.pageable;
    pageable_bytes_ += e.bytes;
  }
}

void TransferAggregator::finish(TransferSummary& out) const {
  out = TransferSummary{};
  for (CopyKind kind : kOrder) {
    TransferStats s = copies_[static_cast<size_t>(kind)];
    if (s.count == 0) continue;
    s.kind = copyKindName(kind);
    finishStats(s);
    out.copies += s.count;
    out.copy_bytes += s.bytes;
    out.pageable_copies += s.pageable;
    out.directions.push_back(s);
  }
  out.pageable_bytes = pageable_bytes_;
  out.memsets = memsets_;
  out.memsets.kind = "Memset";
  finishStats(out.memsets);
}

}  // namespace gpufl::report
