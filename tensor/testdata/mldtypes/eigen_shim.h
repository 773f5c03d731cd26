// eigen_shim.h supplies Eigen::numext::get_integer_by_size, which
// ml_dtypes' float8.h uses and Eigen 3.4 (Debian's libeigen3-dev) lacks;
// gen.cc is compiled with -include eigen_shim.h. Newer Eigen has it.
#include <cstdint>

#include "Eigen/Core"

namespace Eigen {
namespace numext {
template <int N>
struct get_integer_by_size;
template <>
struct get_integer_by_size<1> {
  typedef int8_t signed_type;
  typedef uint8_t unsigned_type;
};
template <>
struct get_integer_by_size<2> {
  typedef int16_t signed_type;
  typedef uint16_t unsigned_type;
};
template <>
struct get_integer_by_size<4> {
  typedef int32_t signed_type;
  typedef uint32_t unsigned_type;
};
template <>
struct get_integer_by_size<8> {
  typedef int64_t signed_type;
  typedef uint64_t unsigned_type;
};
}  // namespace numext
}  // namespace Eigen
