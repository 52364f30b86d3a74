#include "ksnap/tune/args.h"

namespace ksnap::tune {

ArgLayout& ArgLayout::buffer(std::string name, Role role, Fill fill,
                             std::function<int64_t(const Workload&)> bytes,
                             ElementType element) {
  if (element == ElementType::kUnspecified)
    element = fill == Fill::kF16 ? ElementType::kF16
              : fill == Fill::kF32 ? ElementType::kF32
                                   : ElementType::kUnspecified;
  args_.push_back({std::move(name), ArgType::kPointer, role, fill, std::move(bytes), 0, element});
  return *this;
}

ArgLayout& ArgLayout::scalar_i32(std::string name, std::function<int64_t(const Workload&)> value) {
  args_.push_back({std::move(name), ArgType::kI32, Role::kInput, Fill::kZero, std::move(value), 0});
  return *this;
}

ArgLayout& ArgLayout::scalar_i64(std::string name, std::function<int64_t(const Workload&)> value) {
  args_.push_back({std::move(name), ArgType::kI64, Role::kInput, Fill::kZero, std::move(value), 0});
  return *this;
}

ArgLayout& ArgLayout::scalar_f32(std::string name, double value) {
  args_.push_back({std::move(name), ArgType::kF32, Role::kInput, Fill::kZero, nullptr, value});
  return *this;
}

}  // namespace ksnap::tune
