// The checks ratchet-worker applies to a method's result before it is turned into labels, their
// messages (the same words worker.py uses), and the labels' bytes. Kept free of libtorch so they
// are tested alone.
#ifndef RATCHET_WORKER_OUTPUT_CHECK_H_
#define RATCHET_WORKER_OUTPUT_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace ratchet {

// What the worker reads off the tensor a method returned.
struct OutputFacts {
  bool defined = true;         // false: a default-constructed torch::Tensor
  std::vector<int64_t> shape;  // sizes()
  std::string scalar_type;     // c10::toString(scalar_type()): "Float", "Long", ...
  std::string device;          // Device::str(): "cpu", "cuda:0"
};

// The Python name of a libtorch scalar type ("Float" -> "torch.float32").
std::string PythonDtypeName(const std::string& scalar_type);

// A shape as Python prints a tuple: "(10000,)", "(10000, 1)", "()".
std::string PythonTuple(const std::vector<int64_t>& shape);

// True for the dtypes a method may return: int8, int16, int32, int64, uint8.
bool IsLabelDtype(const std::string& scalar_type);

// nullopt when `out` is a label tensor for `test_rows` rows on `test_device`, else why not:
// "the method returned dtype torch.float32, expected an integer dtype".
std::optional<std::string> CheckOutput(const OutputFacts& out, int64_t test_rows,
                                       const std::string& test_device);

// The labels of a go reply, one byte each: a value from 0 to 9 as itself, any other 255 (what
// worker.py sends for the same values). For each dtype a method may return: int8_t, uint8_t,
// int16_t, int32_t, int64_t; every value is compared whole, never by its low byte.
template <typename T>
void LabelBytes(const T* values, size_t count, char* out) {
  for (size_t i = 0; i < count; ++i) {
    const T value = values[i];
    bool label = value <= 9;
    if constexpr (std::is_signed_v<T>) label = label && value >= 0;
    out[i] = static_cast<char>(label ? static_cast<unsigned char>(value) : 255);
  }
}

}  // namespace ratchet

#endif  // RATCHET_WORKER_OUTPUT_CHECK_H_
