#include "cuda/correlation_table.hpp"

namespace gpufl::cuda {

CorrelationTable::CorrelationTable() : slots_(new Slot[kSlots]) {}

}  // namespace gpufl::cuda
