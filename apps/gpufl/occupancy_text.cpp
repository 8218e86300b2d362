#include "occupancy_text.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace gpufl::cli {
namespace {

std::string fmt(const char* format, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

std::string pct(double v) {
  return fmt("%.1f%%", v * 100.0);
}

std::string blocksText(int blocks) {
  return blocks == kUnlimitedBlocks ? std::string("unlimited") : std::to_string(blocks);
}

OccupancyDetail recompute(const ArchLimits& l, OccupancyInput in) {
  return computeOccupancyDetail(l, in);
}

std::string warpsHint(const ArchLimits& l, const OccupancyInput& in, const OccupancyDetail& d) {
  if (d.active_warps == l.max_warps_per_sm)
    return "full occupancy: every warp slot of the SM is in use";
  // The block size closest to the current one that fills the SM with the same per-thread resources.
  int best_threads = 0;
  for (int w = 1; w * l.warp_size <= l.max_threads_per_block; ++w) {
    OccupancyInput candidate = in;
    candidate.block_threads = w * l.warp_size;
    if (recompute(l, candidate).active_warps != l.max_warps_per_sm) continue;
    if (best_threads == 0 || std::abs(candidate.block_threads - in.block_threads) <
                                 std::abs(best_threads - in.block_threads))
      best_threads = candidate.block_threads;
  }
  std::string s =
      fmt("%d blocks of %d warps use %d of the SM's %d warp slots", d.occupancy.max_active_blocks,
          d.warps_per_block, d.active_warps, l.max_warps_per_sm);
  if (best_threads > 0) s += fmt("; %d threads per block would fill them", best_threads);
  return s;
}

std::string blocksHint(const ArchLimits& l, const OccupancyDetail& d) {
  int warps_needed = (l.max_warps_per_sm + l.max_blocks_per_sm - 1) / l.max_blocks_per_sm;
  return fmt(
      "the SM holds at most %d blocks, and blocks of %d warps fill only %d of %d warp slots; use "
      "blocks of "
      "at least %d threads",
      l.max_blocks_per_sm, d.warps_per_block, d.active_warps, l.max_warps_per_sm,
      warps_needed * l.warp_size);
}

// Only a register count that raises the SM's block count is offered: when shared memory (or the
// warp or block cap) allows no more blocks, fewer registers gain nothing, and the hint says so.
std::string registersHint(const ArchLimits& l, const OccupancyInput& in, const OccupancyDetail& d) {
  for (int regs = in.regs_per_thread - 1; regs >= 1; --regs) {
    OccupancyInput fewer = in;
    fewer.regs_per_thread = regs;
    OccupancyDetail r = recompute(l, fewer);
    if (r.occupancy.max_active_blocks > d.occupancy.max_active_blocks)
      return fmt(
          "at most %d registers per thread (now %d; __launch_bounds__ or -maxrregcount) would "
          "allow %d blocks: %s occupancy",
          regs, in.regs_per_thread, r.occupancy.max_active_blocks,
          pct(r.occupancy.occupancy).c_str());
  }
  const char* other = d.blocks_by_shared_mem <= d.blocks_by_registers ? "shared memory"
                      : d.blocks_by_warps <= d.blocks_by_registers    ? "the warp budget"
                                                                      : "the blocks-per-SM cap";
  return fmt(
      "%s also allows only %d blocks per SM, so fewer registers alone gain nothing; reduce "
      "both",
      other, d.occupancy.max_active_blocks);
}

std::string sharedMemHint(const ArchLimits& l, const OccupancyInput& in, const OccupancyDetail& d) {
  if (in.carveout_percent >= 0 && d.smem_per_sm_bytes < l.smem_per_sm_bytes) {
    OccupancyInput dflt = in;
    dflt.carveout_percent = -1;
    OccupancyDetail r = recompute(l, dflt);
    if (r.occupancy.max_active_blocks > d.occupancy.max_active_blocks)
      return fmt(
          "the carveout preference (%d%%) leaves %lld B of shared memory per SM; without it %d "
          "blocks fit: "
          "%s occupancy",
          in.carveout_percent, static_cast<long long>(d.smem_per_sm_bytes),
          r.occupancy.max_active_blocks, pct(r.occupancy.occupancy).c_str());
  }
  int target = d.occupancy.max_active_blocks + 1;
  int64_t unit = l.smem_alloc_unit_bytes > 0 ? l.smem_alloc_unit_bytes : 1;
  int64_t budget = d.smem_per_sm_bytes / target / unit * unit - l.smem_reserved_per_block_bytes;
  if (budget <= 0) return "use less shared memory per block";
  OccupancyInput less = in;
  less.static_smem_bytes = 0;
  less.dyn_smem_bytes = budget;
  OccupancyDetail r = recompute(l, less);
  std::string now =
      fmt("now %lld static + %lld dynamic", static_cast<long long>(in.static_smem_bytes),
          static_cast<long long>(in.dyn_smem_bytes));
  if (l.smem_reserved_per_block_bytes > 0)
    now += fmt(" + %lld reserved by the driver",
               static_cast<long long>(l.smem_reserved_per_block_bytes));
  return fmt("at most %lld B of shared memory per block (%s) would allow %d blocks: %s occupancy",
             static_cast<long long>(budget), now.c_str(), r.occupancy.max_active_blocks,
             pct(r.occupancy.occupancy).c_str());
}

}  // namespace

std::string occupancyHint(const ArchLimits& l, const OccupancyInput& in, const OccupancyDetail& d) {
  if (!d.valid) return d.error;
  if (d.occupancy.max_active_blocks == 0) return "no block fits: " + d.zero_reason;
  switch (d.occupancy.limiting) {
    case LimitingResource::Warps:
      return warpsHint(l, in, d);
    case LimitingResource::Blocks:
      return blocksHint(l, d);
    case LimitingResource::Registers:
      return registersHint(l, in, d);
    case LimitingResource::SharedMem:
      return sharedMemHint(l, in, d);
    case LimitingResource::None:
      break;
  }
  return {};
}

std::string occupancyText(const ArchLimits& l, const OccupancyInput& in, const OccupancyDetail& d) {
  const Occupancy& o = d.occupancy;
  std::string s;
  s += fmt("Occupancy on %s (per SM: %d warps, %d blocks, %d registers, %lld B shared memory)\n",
           l.archName().c_str(), l.max_warps_per_sm, l.max_blocks_per_sm, l.regs_per_sm,
           static_cast<long long>(l.smem_per_sm_bytes));
  s +=
      fmt("  block: %d threads (%d warps), %d registers/thread, %lld B static + %lld B dynamic "
          "shared memory",
          in.block_threads, d.warps_per_block, in.regs_per_thread,
          static_cast<long long>(in.static_smem_bytes), static_cast<long long>(in.dyn_smem_bytes));
  s += in.carveout_percent >= 0 ? fmt(", carveout %d%%\n", in.carveout_percent) : std::string("\n");
  s += "\n";
  s += fmt("  blocks per SM     %d\n", o.max_active_blocks);
  s += fmt("  active warps      %d / %d\n", d.active_warps, l.max_warps_per_sm);
  s += fmt("  occupancy         %s\n", pct(o.occupancy).c_str());
  s += "\n";
  s += "  resource      blocks/SM  occupancy  allocation\n";
  s += fmt("  registers     %9s  %9s  %d regs/warp, %d regs/block\n",
           blocksText(d.blocks_by_registers).c_str(), pct(o.reg_occupancy).c_str(),
           d.regs_per_warp_allocated, d.regs_per_block_allocated);
  std::string smem_alloc = fmt("%lld B/block", static_cast<long long>(d.smem_per_block_allocated));
  if (l.smem_reserved_per_block_bytes > 0)
    smem_alloc += fmt(" (incl. %lld B driver reserve)",
                      static_cast<long long>(l.smem_reserved_per_block_bytes));
  smem_alloc += fmt(" of %lld B/SM", static_cast<long long>(d.smem_per_sm_bytes));
  s += fmt("  shared_mem    %9s  %9s  %s\n", blocksText(d.blocks_by_shared_mem).c_str(),
           pct(o.smem_occupancy).c_str(), smem_alloc.c_str());
  s += fmt("  warps         %9s  %9s  %d warps/block\n", blocksText(d.blocks_by_warps).c_str(),
           pct(o.warp_occupancy).c_str(), d.warps_per_block);
  s += fmt("  blocks        %9s  %9s  at most %d blocks/SM\n",
           blocksText(d.blocks_by_blocks).c_str(), pct(o.block_occupancy).c_str(),
           l.max_blocks_per_sm);
  s += "\n";
  s += fmt("  limited by: %s\n", limitingResourceName(o.limiting));
  s += "  hint: " + occupancyHint(l, in, d) + "\n";
  return s;
}

std::string occupancyJson(const ArchLimits& l, const OccupancyInput& in, const OccupancyDetail& d) {
  const Occupancy& o = d.occupancy;
  auto limit = [](int blocks) {
    return blocks == kUnlimitedBlocks ? std::string("null") : std::to_string(blocks);
  };
  auto quoted = [](const std::string& text) {
    std::string q = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') q += '\\';
      if (static_cast<unsigned char>(c) >= 0x20) q += c;
    }
    return q + "\"";
  };
  std::string s = "{";
  s += "\"arch\":" + quoted(l.archName());
  s += fmt(",\"threads\":%d,\"num_regs\":%d,\"static_shared_bytes\":%lld,\"dyn_shared_bytes\":%lld",
           in.block_threads, in.regs_per_thread, static_cast<long long>(in.static_smem_bytes),
           static_cast<long long>(in.dyn_smem_bytes));
  s += fmt(",\"carveout\":%d", in.carveout_percent);
  s += fmt(",\"max_active_blocks\":%d,\"active_warps\":%d,\"max_warps\":%d", o.max_active_blocks,
           d.active_warps, l.max_warps_per_sm);
  s += fmt(",\"occupancy\":%.6g,\"reg_occupancy\":%.6g,\"smem_occupancy\":%.6g", o.occupancy,
           o.reg_occupancy, o.smem_occupancy);
  s +=
      fmt(",\"warp_occupancy\":%.6g,\"block_occupancy\":%.6g", o.warp_occupancy, o.block_occupancy);
  s += ",\"limiting_resource\":" + quoted(limitingResourceName(o.limiting));
  s += ",\"block_limits\":{\"registers\":" + limit(d.blocks_by_registers) +
       ",\"shared_mem\":" + limit(d.blocks_by_shared_mem) +
       ",\"warps\":" + limit(d.blocks_by_warps) + ",\"blocks\":" + limit(d.blocks_by_blocks) + "}";
  s += fmt(",\"regs_per_warp_allocated\":%d,\"regs_per_block_allocated\":%d",
           d.regs_per_warp_allocated, d.regs_per_block_allocated);
  s += fmt(
      ",\"smem_per_block_allocated\":%lld,\"smem_per_sm_bytes\":%lld,\"min_carveout_bytes\":%lld",
      static_cast<long long>(d.smem_per_block_allocated),
      static_cast<long long>(d.smem_per_sm_bytes), static_cast<long long>(d.min_carveout_bytes));
  s += ",\"hint\":" + quoted(occupancyHint(l, in, d));
  s += "}\n";
  return s;
}

}  // namespace gpufl::cli
