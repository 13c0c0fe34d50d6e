#include "kfvm_Log.hpp"

#include <cstdarg>
#include <cstdio>
#include <string>

#ifdef KFVM_HAVE_SPDLOG
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#endif

namespace kfvm::app::log {

namespace {

Level current = Level::Normal;
enum class Kind { Debug, Info, Warn, Error };

std::string format(const char* text, std::va_list arguments) {
  std::va_list copy;
  va_copy(copy, arguments);
  const int size = std::vsnprintf(nullptr, 0, text, copy);
  va_end(copy);
  std::string message(size > 0 ? std::size_t(size) : 0, '\0');
  if (size > 0) std::vsnprintf(message.data(), message.size() + 1, text, arguments);
  return message;
}

#ifdef KFVM_HAVE_SPDLOG
/// stdout for info and debug, as they are; stderr for warnings and errors.
struct Loggers {
  std::shared_ptr<spdlog::logger> out, err;
  Loggers()
      : out(std::make_shared<spdlog::logger>(
            "kfvm", std::make_shared<spdlog::sinks::stdout_sink_mt>())),
        err(std::make_shared<spdlog::logger>(
            "kfvm-errors", std::make_shared<spdlog::sinks::stderr_sink_mt>())) {
    out->set_pattern("%v");
    err->set_pattern("kfvm %l: %v");
    out->flush_on(spdlog::level::debug);
    err->flush_on(spdlog::level::warn);
    apply();
  }
  void apply() {
    out->set_level(current == Level::Verbose  ? spdlog::level::debug
                   : current == Level::Normal ? spdlog::level::info
                                              : spdlog::level::warn);
  }
};

Loggers& loggers() {
  static Loggers instance;
  return instance;
}

void emit(Kind kind, const std::string& message) {
  const spdlog::level::level_enum levels[] = {spdlog::level::debug, spdlog::level::info,
                                              spdlog::level::warn, spdlog::level::err};
  auto& logger = kind >= Kind::Warn ? loggers().err : loggers().out;
  logger->log(levels[int(kind)], "{}", message);
}
#else
void emit(Kind kind, const std::string& message) {
  if (kind == Kind::Debug && current != Level::Verbose) return;
  if (kind == Kind::Info && current == Level::Quiet) return;
  if (kind == Kind::Warn || kind == Kind::Error)
    std::fprintf(stderr, "kfvm %s: %s\n", kind == Kind::Warn ? "warning" : "error",
                 message.c_str());
  else
    std::printf("%s\n", message.c_str());
  std::fflush(kind == Kind::Warn || kind == Kind::Error ? stderr : stdout);
}
#endif

}  // namespace

void setLevel(Level level) {
  current = level;
#ifdef KFVM_HAVE_SPDLOG
  loggers().apply();
#endif
}

Level level() {
  return current;
}

#define KFVM_LOG_FUNCTION(name, kind)                    \
  void name(const char* text, ...) {                     \
    std::va_list arguments;                              \
    va_start(arguments, text);                           \
    const std::string message = format(text, arguments); \
    va_end(arguments);                                   \
    emit(kind, message);                                 \
  }
KFVM_LOG_FUNCTION(debug, Kind::Debug)
KFVM_LOG_FUNCTION(info, Kind::Info)
KFVM_LOG_FUNCTION(warn, Kind::Warn)
KFVM_LOG_FUNCTION(error, Kind::Error)
#undef KFVM_LOG_FUNCTION

}  // namespace kfvm::app::log
