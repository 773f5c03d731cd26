// Package tensor defines Kiln's element types (dtypes) and its dense,
// row-major Array.
//
// There are 15 concrete dtypes (bool, u8 u16 u32 u64, i8 i16 i32 i64, bf16,
// f16, f32, f64, c64, c128), declared in table order; every property of a
// dtype (names, size, kind) is read from one table. Weak types are not
// dtypes: they are a flag carried beside a dtype by package promote. Each
// dtype has one Go storage type; the two 16-bit floats have their own,
// Float16 and BFloat16, so any array can be built with this package alone.
//
// Conventions:
//   - Short names (f16) print; ParseDType also accepts long names (float16)
//     and NumPy character codes where they do not clash with a short name
//     (f2, c8; "i8" is always int8 here, never NumPy's int64).
//   - Conversions follow docs/SPEC.md §3: float → int truncates toward zero and
//     saturates, NaN → 0; int → float rounds to nearest even; bf16 and f16
//     round to nearest even from f32.
//   - Sizes: every element count and byte size is computed by ShapeSize
//     and ByteSize, which refuse (a typed *SizeError naming the shape) a
//     shape whose nonzero dimensions multiply past the int range, as NumPy
//     does, so no size, stride or offset of a valid shape can overflow.
//   - Allocation limit: whatever allocates from a shape (Zeros, Arange,
//     a compiled program's buffers, the CLI's arguments) first asks
//     CheckAlloc, which refuses more than MaxAlloc bytes in one array —
//     by default the machine's memory; KILN_MAX_ALLOC or SetMaxAlloc
//     change it — so a typo in a shape is an error, not an out-of-memory
//     kill. Wrapping a slice (FromSlice, New) allocates nothing and is
//     not limited; neither are Clone and Astype, whose sizes come from
//     an array that already exists.
package tensor
