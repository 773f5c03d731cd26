// Package tensor defines Kiln's element types (dtypes) and its dense,
// row-major Array.
//
// There are 30 concrete dtypes: the 15 standard ones (bool, u8 u16 u32 u64,
// i8 i16 i32 i64, bf16, f16, f32, f64, c64, c128), declared in the seed
// tables' order, then JAX's 15 narrow ones (f8e4m3fn … f4e2m1fn, i4 u4 i2
// u2; see "Narrow dtypes" below); every property of a dtype (names, size,
// kind) is read from one table. Weak types are not dtypes: they are a flag
// carried beside a dtype by package promote. Each dtype has one Go storage
// type; the 16-bit floats have their own, Float16 and BFloat16, and so do
// the narrow ones (Float8E4M3FN …, Int4 …), so any array can be built with
// this package alone.
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
//
// # Narrow dtypes
//
// FloatFormat and IntFormat are JAX's narrow number formats — the floats
// f8e4m3fn f8e5m2 f8e4m3fnuz f8e5m2fnuz f8e4m3b11fnuz f8e3m4 f8e4m3
// f8e8m0fnu f6e2m3fn f6e3m2fn f4e2m1fn and the integers i4 u4 i2 u2 — as
// exact conversions between their bits and Go numbers; each is also a
// DType (FloatFormat.DType, DType.FloatFormat, IsNarrow). ParseDType,
// ParseFloatFormat and ParseIntFormat take Kiln's names and JAX's
// (float8_e4m3fn, int4). A float value is its bits in a uint8 (the 6- and
// 4-bit formats in the low bits, as ml_dtypes stores them; higher bits are
// ignored when read by the format, refused by FromSlice and New).
//
// Storage: an Array of a narrow dtype holds one element per byte — its
// storage types Float8E4M3FN … Float4E2M1FN hold a float's encoding, Int4,
// Uint4, Int2 and Uint2 an integer's value (sign-extended) — so every
// element stays addressable, as in ml_dtypes and JAX on CPU. An Array of
// a sub-byte integer dtype may instead be packed (see "Packed sub-byte
// arrays" below); PackInts and UnpackInts pack and unpack plain slices in
// the same layout. Astype converts
// to and from every dtype with the rules below; .npy refuses the narrow
// dtypes (ml_dtypes' '|V1' does not name the format), safetensors takes
// F8_E4M3, F8_E5M2 and F8_E8M0.
//
// A float format has a sign bit (not f8e8m0fnu), E exponent and M
// mantissa bits and a bias: exponent field e ≥ 1 is ±2^(e−bias)·(1+m/2^M),
// e = 0 the subnormal ±2^(1−bias)·m/2^M (f8e8m0fnu: every e is 2^(e−127)).
// Its NaNEncoding says what is special:
//
//	ieee  f8e5m2 f8e4m3 f8e3m4                 all-ones exponent: ±Inf (m = 0), else NaN
//	fn    f8e4m3fn                             no Inf; only S.1111.111 is NaN
//	fnuz  f8e4m3fnuz f8e5m2fnuz f8e4m3b11fnuz  no Inf, no −0; 0x80 is the one NaN
//	e8m0  f8e8m0fnu                            unsigned; no zero, no Inf; 0xFF is the one NaN
//	none  f6e2m3fn f6e3m2fn f4e2m1fn           no NaN, no Inf
//
// Conversions are ml_dtypes' (include/float8.h ConvertImpl with its
// defaults kSaturate=false, kTruncate=false, and mxfloat.h): what numpy's
// x.astype(ml_dtypes.float8_e4m3fn) gives, held bit for bit to ml_dtypes'
// own C++ in the tests (testdata/mldtypes).
//
//   - ToFloat32 and ToFloat64 are exact. A NaN widens to the quiet NaN with
//     the encoding's sign bit (fnuz's 0x80 is −NaN); payloads are not kept.
//   - FromFloat32 and FromFloat64 round to nearest, ties to even, once:
//     from float64 directly, as ml_dtypes' C++ does (numpy's astype of a
//     float64 array goes through float32 and may round twice).
//   - Overflow — a magnitude that rounds above the largest finite — and
//     ±Inf give ±Inf (ieee), NaN (fn, with the sign; fnuz 0x80; e8m0 0xFF),
//     or ±largest for the none formats, which saturate (ml_dtypes' infinity()
//     for them is the largest value).
//   - NaN gives the format's quiet NaN (ieee: all-ones exponent, top
//     mantissa bit; fn: S.1111.111) with the sign; fnuz 0x80; e8m0 0xFF. The
//     none formats have no NaN and the MX spec leaves the conversion to the
//     implementation: ml_dtypes gives −quiet_NaN(), whose encoding is −0's,
//     so NaN gives −0 and −NaN +0.
//   - Zero keeps its sign, except fnuz (always +0) and e8m0 (no zero:
//     NaN); a negative value that underflows gives −0 (fnuz +0).
//   - f8e8m0fnu: a negative number is NaN; between powers of two ties go
//     up (every significand is 1, odd); below 2⁻¹²⁷ gives 2⁻¹²⁷; and in
//     (2⁻¹²⁷, 2⁻¹²⁶) ml_dtypes gives 2⁻¹²⁶ even where 2⁻¹²⁷ is nearer — a
//     quirk of its subnormal path, kept for agreement.
//
// Sub-byte integers: FromInt64 and FromUint64 wrap (keep the low bits, as
// JAX's astype between integer types); FromFloat32 and FromFloat64 truncate
// toward zero and saturate, NaN → 0, as every Kiln float → int convert
// (docs/SPEC.md §3; ml_dtypes' C++ cast is undefined out of range). Packed
// storage (PackInts, UnpackInts, PackedLen) holds 8/Bits values a byte,
// the first in the lowest bits: ONNX's INT4/UINT4 layout, which PyTorch's
// quint4x2 and Keras' pack_int4 share. ml_dtypes keeps one value a byte,
// unpacked; XLA packs inside its own buffers (an xla/util.h PackIntN we
// read puts the first value in the high bits), which no file exposes.
//
// # Packed sub-byte arrays
//
// An Array of dtype i4, u4, i2 or u2 is either unpacked (one element a
// byte, as above: FromSlice, New, Zeros, Astype) or packed (IsPacked):
// 8/Bits elements a byte in row-major order, the first in the lowest
// bits — ONNX's INT4/UINT4 layout, as PackInts — so a packed i4 array of
// n elements holds ⌈n/2⌉ bytes (NBytes; PackedSize computes it from a
// shape, overflow-checked). A 4-bit weight matrix that arrives packed
// (from a file, or another engine's buffer) is wrapped with FromPacked
// without a copy; Pack and Unpack convert between the two layouts (each
// returns its argument itself when it already has the layout asked for).
//
//   - FromPacked takes exactly PackedSize bytes (else a *PackedError
//     naming the dtype, shape and both counts); a dtype other than the
//     four is a *PackedError, a shape past the int range a *SizeError.
//   - The unused high bits of a last, partial byte are ignored by every
//     reader and written zero by Pack and Clone; the caller's bytes are
//     never written.
//   - The layout is storage, not value: Equal, String, FormatElem and
//     Astype see the elements (a packed array equals its unpacked copy;
//     Astype always returns an unpacked array — Pack it for packed
//     storage). Reshape and Clone keep the layout.
//   - PackedBytes returns the packed storage without copying (nil for an
//     unpacked array). Data() of a packed array returns a new unpacked
//     slice ([]Int4 …), so that every reader of Data keeps reading the
//     values, at the cost of that copy; writes into it do not reach the
//     array. Data[T], the typed access used to write in place, returns a
//     *PackedError instead of a copy whose writes would be lost.
//
// Kiln accepts a packed array wherever it takes an Array as an input: a
// compiled program's Run and RunInto unpack it at the run boundary into
// scratch the executable keeps for its next run — except an i4 or u4
// input that only int8 products read in place (an int8 × int4 matmul
// with preferred_element_type i32, the int4 operand widened by astype):
// the int8 GEMM reads it packed, unpacking as it packs its panels, and no
// unpacked copy is made. The reference evaluator unpacks at its entry, a
// constant (Const) is copied unpacked. A packed array is no RunInto
// output (the kernels write one element a byte: an *ArgError) and is not
// taken into a Func's pool by Release. Files: .npy and safetensors have
// no sub-byte integer dtype, and ONNX export refuses the narrow dtypes, so
// no file writer takes one, packed or not; FromPacked reads another
// format's packed bytes (ONNX INT4 raw_data, a quantized checkpoint) as
// they are.
//
// # Array files
//
// The package reads and writes the files other engines exchange arrays
// in, with the standard library alone:
//
//   - NumPy .npy: ReadNPY, ReadNPYFile, WriteNPY, WriteNPYWith (NPYOptions:
//     big-endian, Fortran order, format version), WriteNPYFile. Versions
//     1.0, 2.0 and 3.0 are read, in either byte order and in C or Fortran
//     order (returned row-major); WriteNPY writes what np.save does.
//   - NumPy .npz: ReadNPZ, ReadNPZFile, WriteNPZ, WriteNPZFile — a zip of
//     .npy members, stored (np.savez) or deflated (np.savez_compressed),
//     named as np.load names them.
//   - safetensors: OpenSafetensors maps a file read-only and returns a
//     *SafetensorsFile whose arrays view the mapping (valid until Close;
//     never write them); ReadSafetensors and ReadSafetensorsFile copy;
//     WriteSafetensors and WriteSafetensorsFile write, aligning every
//     tensor. Several arrays are NamedArrays, in file order.
//
// WriteNPYFile, WriteNPZFile and WriteSafetensorsFile write a temporary
// file beside the path and rename it over the path once it is complete,
// so a write that fails leaves the file that was there, and no partial
// one.
//
// Dtypes: every Kiln dtype NumPy has round-trips bit for bit, NaN
// payloads and −0 included. bf16, which NumPy lacks, is written to .npy
// as the 2-byte void '<V2' — what ml_dtypes' np.save writes for
// bfloat16, which NumPy loads as V2 and .view(ml_dtypes.bfloat16)
// restores — and a 2-byte void is read as bf16. Safetensors have no
// complex dtype and Kiln no f8, f6 or f4 one: those are errors. A bool
// byte other than 0 or 1 reads as true (Go's bool must be 0 or 1).
//
// Untrusted files: a file that cannot be read is a *FileError (format,
// name, byte offset, what is wrong, and the cause), never a panic. Before
// anything is allocated, a header's length is checked against
// MaxNPYHeader or MaxSafetensorsHeader and the bytes the file has, and
// an array's claimed byte size (overflow-checked, as ByteSize) against
// the bytes the file has and MaxAlloc; safetensors' data_offsets must
// tile the data exactly, in order, as the reference implementation
// requires. Where the length of a stream is unknown (a pipe, a deflated
// member) the data is read in pieces, so memory follows the bytes that
// really arrive rather than the header's claim. The members of an .npz
// must not share bytes (each ends before the next begins, as Python's
// zipfile checks), so no member's expansion is paid twice. FuzzReadNPY, FuzzReadNPZ
// and FuzzReadSafetensors hold the readers to this.
package tensor
