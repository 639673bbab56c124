#include "divisors.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace shardlab::planner::internal {
namespace {

__extension__ using uint128 = unsigned __int128;  // GCC/Clang builtin; -Wpedantic would flag it

uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t m) {
  return static_cast<uint64_t>(static_cast<uint128>(a) * b % m);
}

uint64_t pow_mod(uint64_t base, uint64_t exp, uint64_t m) {
  uint64_t result = 1 % m;
  base %= m;
  while (exp > 0) {
    if (exp & 1) result = mul_mod(result, base, m);
    base = mul_mod(base, base, m);
    exp >>= 1;
  }
  return result;
}

constexpr uint64_t kSmallPrimes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};

// Miller-Rabin with the first twelve primes as bases: exact for every n < 2^64.
bool is_prime(uint64_t n) {
  if (n < 2) return false;
  for (uint64_t p : kSmallPrimes) {
    if (n % p == 0) return n == p;
  }
  uint64_t d = n - 1;
  int s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  for (uint64_t a : kSmallPrimes) {
    uint64_t x = pow_mod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int r = 1; r < s && composite; ++r) {
      x = mul_mod(x, x, n);
      composite = x != n - 1;
    }
    if (composite) return false;
  }
  return true;
}

// A non-trivial factor of the odd composite `n` (Brent's variant of Pollard's
// rho, with gcds batched over 128 steps). Deterministic: the constant of the
// iterated polynomial runs 1, 2, ... until a factor turns up.
uint64_t rho_factor(uint64_t n) {
  for (uint64_t c = 1;; ++c) {
    const auto f = [&](uint64_t x) { return (mul_mod(x, x, n) + c) % n; };
    uint64_t y = 2, x = 2, saved = 2, q = 1, g = 1;
    for (uint64_t r = 1; g == 1; r <<= 1) {
      x = y;
      for (uint64_t i = 0; i < r; ++i) y = f(y);
      for (uint64_t k = 0; k < r && g == 1; k += 128) {
        saved = y;
        for (uint64_t i = 0; i < std::min<uint64_t>(128, r - k); ++i) {
          y = f(y);
          q = mul_mod(q, x > y ? x - y : y - x, n);
        }
        g = std::gcd(q, n);
      }
    }
    if (g == n) {  // the batch overshot: step one at a time from its start
      do {
        saved = f(saved);
        g = std::gcd(x > saved ? x - saved : saved - x, n);
      } while (g == 1);
    }
    if (g != n) return g;
  }
}

void factor(uint64_t n, std::vector<uint64_t>& primes) {
  if (n == 1) return;
  if (is_prime(n)) {
    primes.push_back(n);
    return;
  }
  const uint64_t d = rho_factor(n);
  factor(d, primes);
  factor(n / d, primes);
}

}  // namespace

uint64_t smallest_divisor_at_least(uint64_t n, uint64_t at_least) {
  // Real dims find their block within a few steps.
  constexpr uint64_t kDirectSteps = 64;
  for (uint64_t d = at_least; d < n && d - at_least < kDirectSteps; ++d) {
    if (n % d == 0) return d;
  }
  if (at_least >= n) return n;

  std::vector<uint64_t> primes;
  uint64_t rest = n;
  for (uint64_t p = 2; p < 1000 && p * p <= rest; ++p) {
    while (rest % p == 0) {
      primes.push_back(p);
      rest /= p;
    }
  }
  factor(rest, primes);
  std::sort(primes.begin(), primes.end());

  // Every divisor, built prime by prime (an int64 has at most ~10^5).
  std::vector<uint64_t> divisors = {1};
  for (size_t i = 0; i < primes.size();) {
    const uint64_t p = primes[i];
    size_t exponent = 0;
    while (i < primes.size() && primes[i] == p) {
      ++exponent;
      ++i;
    }
    const size_t base = divisors.size();
    uint64_t power = 1;
    for (size_t e = 1; e <= exponent; ++e) {
      power *= p;
      for (size_t j = 0; j < base; ++j) divisors.push_back(divisors[j] * power);
    }
  }
  uint64_t best = n;
  for (uint64_t d : divisors) {
    if (d >= at_least && d < best) best = d;
  }
  return best;
}

}  // namespace shardlab::planner::internal
