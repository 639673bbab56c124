// Whether the tests run under AddressSanitizer, whose shadow memory and
// redzones make resident-memory figures the sanitizer's, not the code's.
#pragma once

namespace shardlab::test_support {

inline bool sanitized_build() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

}  // namespace shardlab::test_support
