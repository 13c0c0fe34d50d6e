#ifndef KFVM_DETAIL_HDF5_HANDLE_HPP
#define KFVM_DETAIL_HDF5_HANDLE_HPP

// An HDF5 handle closed on scope exit, for kfvm's checkpoint writers (the deck runner's
// and the distributed one). Include only where hdf5.h is available.

#include <kfvm_Error.hpp>

#include <hdf5.h>

#include <string>
#include <utility>

namespace kfvm::Details {

/// What HDF5's error stack says failed at the bottom (the system's reason, such as "No
/// space left on device", when a write failed), as " (HDF5: ...)"; empty when it says
/// nothing. Read it at once: the next HDF5 call clears the stack.
inline std::string hdf5Reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* entry, void* data) -> herr_t {
        if (n != 0 || !entry->desc) return 0;
        auto& text = *static_cast<std::string*>(data);
        for (const char* c = entry->desc; *c; ++c)
          if (*c != '\n') text += *c;  // HDF5's time stamp ends in a new line
        return 0;
      },
      &reason);
  return reason.empty() ? reason : " (HDF5: " + reason + ")";
}

/// Closes an HDF5 handle with its own close function. close() is the checked close of
/// the paths that succeed (HDF5 writes buffered data when a dataset or file is closed,
/// so a close can fail on a full disk); the destructor closes what an error left open,
/// without checking.
class Hdf5Handle {
 public:
  Hdf5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Hdf5Handle() {
    if (id_ >= 0) close_(id_);
  }
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  Hdf5Handle(Hdf5Handle&& other) noexcept : id_(other.id_), close_(other.close_) {
    other.id_ = -1;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

  /// Closes now; kfvm::Error with the parts as its message when HDF5 reports a failure.
  template <class... Parts>
  void close(Parts&&... parts) {
    const hid_t id = id_;
    id_ = -1;
    if (id >= 0 && close_(id) >= 0) return;
    fail(std::forward<Parts>(parts)..., hdf5Reason());
  }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

}  // namespace kfvm::Details

#endif
