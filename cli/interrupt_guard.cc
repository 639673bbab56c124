#include "interrupt_guard.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace shardlab::cli {
namespace {

std::atomic<bool> g_interrupted{false};
const char* g_note = "";
size_t g_note_size = 0;
struct sigaction g_previous = {};
bool g_installed = false;

extern "C" void on_interrupt(int) {
  g_interrupted.store(true, std::memory_order_relaxed);
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, g_note, g_note_size);
}

}  // namespace

InterruptGuard::InterruptGuard(const char* note) {
  g_interrupted.store(false);
  g_note = note;
  g_note_size = std::strlen(note);
  struct sigaction sa = {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  g_installed = sigaction(SIGINT, &sa, &g_previous) == 0;
}

InterruptGuard::~InterruptGuard() {
  if (g_installed) sigaction(SIGINT, &g_previous, nullptr);
  g_installed = false;
}

const std::atomic<bool>* InterruptGuard::flag() { return &g_interrupted; }

}  // namespace shardlab::cli
