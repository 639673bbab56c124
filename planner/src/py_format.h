// Python-compatible number formatting, so messages and the stats table print
// numbers exactly as TorchRec (Python) does.
#pragma once

#include <string>

namespace shardlab::planner {

// Python repr(float): shortest round-trip digits; "12.0", "0.1", "1e-05", "1e+16".
std::string py_float_repr(double x);

// Python str(round(x, k)): round the exact binary value half-to-even to k
// decimals, then print the resulting double as repr does.
std::string py_round(double x, int k);

}  // namespace shardlab::planner
