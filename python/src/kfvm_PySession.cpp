#include "kfvm_PySession.hpp"

#include <kfvm_Error.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace kfvm::python {

namespace {
SessionRef running;
std::weak_ptr<Session> alive;  // running or not, while any object holds it
bool finalized = false;
}  // namespace

Session::Session(int numThreads, int deviceId)
    : numThreads_(numThreads), deviceId_(deviceId) {
  ownsKokkos_ = !Kokkos::is_initialized();  // another module may have started it
  if (!ownsKokkos_) return;
  // Kokkos' own command-line options: the same in Kokkos 3.4 and 4.x, and read
  // together with its environment variables.
  std::vector<std::string> arguments{"kfvm"};
  if (numThreads > 0)
    arguments.push_back("--kokkos-num-threads=" + std::to_string(numThreads));
  if (deviceId >= 0)
    arguments.push_back("--kokkos-device-id=" + std::to_string(deviceId));
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  int argc = int(arguments.size());
  Kokkos::initialize(argc, argv.data());
  numThreads_ = Kokkos::DefaultHostExecutionSpace().concurrency();
}

Session::~Session() {
  if (ownsKokkos_ && Kokkos::is_initialized()) Kokkos::finalize();
  finalized = true;
}

SessionRef session() {
  if (running) return running;
  if (auto current = alive.lock()) return current;  // released, objects still alive
  return initialize(-1, -1);
}

SessionRef initialize(int numThreads, int deviceId) {
  require(numThreads == -1 || numThreads >= 1,
          "num_threads must be at least 1 (or -1 for Kokkos' default), got ", numThreads);
  require(deviceId >= -1, "device_id must be >= 0 (or -1 for Kokkos' default), got ",
          deviceId);
  if (running) {
    const bool same = (numThreads == -1 || numThreads == running->numThreads()) &&
                      (deviceId == -1 || deviceId == running->deviceId());
    require(same, "Kokkos already runs (num_threads ", running->numThreads(),
            ", device_id ", running->deviceId(),
            "); kfvm.initialize(num_threads=", numThreads, ", device_id=", deviceId,
            ") must come before the first mesh or field");
    return running;
  }
  require(!finalized,
          "Kokkos was finalized at interpreter exit; kfvm cannot start it again");
  running = std::make_shared<Session>(numThreads, deviceId);
  alive = running;
  return running;
}

void release() {
  running.reset();
}

bool isRunning() {
  return bool(running) || !alive.expired();
}

}  // namespace kfvm::python
