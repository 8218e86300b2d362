// Counts global operator new calls on the calling thread between start and stop (the replacement
// operator new lives in no_alloc_counter.cpp: a .cu file cannot define it, nvcc sees it as device code).
#pragma once

#include <cstdint>

void startCountingNew();
uint64_t stopCountingNew();  // calls since startCountingNew on this thread
