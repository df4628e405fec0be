#include "worker/output_check.h"

#include <cctype>
#include <map>

namespace ratchet {

std::string PythonDtypeName(const std::string& scalar_type) {
  static const std::map<std::string, std::string> kNames = {
      {"Byte", "uint8"},
      {"Char", "int8"},
      {"Short", "int16"},
      {"Int", "int32"},
      {"Long", "int64"},
      {"Half", "float16"},
      {"Float", "float32"},
      {"Double", "float64"},
      {"ComplexHalf", "complex32"},
      {"ComplexFloat", "complex64"},
      {"ComplexDouble", "complex128"},
      {"Bool", "bool"},
      {"QInt8", "qint8"},
      {"QUInt8", "quint8"},
      {"QInt32", "qint32"},
      {"BFloat16", "bfloat16"},
      {"QUInt4x2", "quint4x2"},
      {"QUInt2x4", "quint2x4"},
      {"UInt16", "uint16"},
      {"UInt32", "uint32"},
      {"UInt64", "uint64"},
  };
  auto it = kNames.find(scalar_type);
  if (it != kNames.end()) return "torch." + it->second;
  std::string lower;
  for (char c : scalar_type) lower.push_back(static_cast<char>(std::tolower(c)));
  return "torch." + lower;
}

std::string PythonTuple(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

bool IsLabelDtype(const std::string& scalar_type) {
  return scalar_type == "Char" || scalar_type == "Short" || scalar_type == "Int" ||
         scalar_type == "Long" || scalar_type == "Byte";
}

std::optional<std::string> CheckOutput(const OutputFacts& out, int64_t test_rows,
                                       const std::string& test_device) {
  if (!out.defined) return "the method returned an undefined tensor, not a plain torch.Tensor";
  if (out.shape != std::vector<int64_t>{test_rows}) {
    return "the method returned shape " + PythonTuple(out.shape) + ", expected " +
           PythonTuple({test_rows});
  }
  if (!IsLabelDtype(out.scalar_type)) {
    return "the method returned dtype " + PythonDtypeName(out.scalar_type) +
           ", expected an integer dtype";
  }
  if (out.device != test_device) {
    return "the method returned a tensor on " + out.device + ", expected " + test_device;
  }
  return std::nullopt;
}

}  // namespace ratchet
