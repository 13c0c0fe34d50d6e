#ifndef KFVM_APPS_LOG_HPP
#define KFVM_APPS_LOG_HPP

// Messages of `kfvm run` by level, through spdlog (Debian: libspdlog-dev; plain stdio
// when kfvm is built without it). info and debug go to stdout as they are; warnings and
// errors to stderr, prefixed "kfvm warning: " / "kfvm error: ". The level follows
// -q / -v: quiet shows warnings and errors only, normal adds info (progress every
// progress_every steps, what the run is), verbose adds debug (every step, sweeps,
// checkpoints and files written). A run's results (its [check] and what it wrote) are
// not log messages: they always print. Host only: the header includes no spdlog, so
// device compilers never parse it.

namespace kfvm::app::log {

enum class Level { Quiet, Normal, Verbose };

void setLevel(Level level);
Level level();

#if defined(__GNUC__)
#define KFVM_PRINTF_FORMAT __attribute__((format(printf, 1, 2)))
#else
#define KFVM_PRINTF_FORMAT
#endif
void debug(const char* format, ...) KFVM_PRINTF_FORMAT;
void info(const char* format, ...) KFVM_PRINTF_FORMAT;
void warn(const char* format, ...) KFVM_PRINTF_FORMAT;
void error(const char* format, ...) KFVM_PRINTF_FORMAT;
#undef KFVM_PRINTF_FORMAT

}  // namespace kfvm::app::log

#endif
