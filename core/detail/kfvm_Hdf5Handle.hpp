#ifndef KFVM_DETAIL_HDF5_HANDLE_HPP
#define KFVM_DETAIL_HDF5_HANDLE_HPP

// An HDF5 handle closed on scope exit, for kfvm's checkpoint writers (the deck runner's
// and the distributed one). Include only where hdf5.h is available.

#include <hdf5.h>

namespace kfvm::Details {

/// Closes an HDF5 handle with its own close function on scope exit.
class Hdf5Handle {
 public:
  Hdf5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Hdf5Handle() {
    if (id_ >= 0) close_(id_);
  }
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

}  // namespace kfvm::Details

#endif
