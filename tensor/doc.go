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
