package tensor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// fileShapes are the shapes the file tests cover: rank 0, empty, 1-D and
// higher ranks with and without a 0.
var fileShapes = [][]int{{}, {0}, {1}, {5}, {2, 3}, {2, 0, 3}, {3, 1, 4}, {2, 3, 2, 2}}

// bitsArray is an array of d and shape whose bytes are random (so floats
// hold NaNs with payloads, -0, subnormals and infinities), bools 0 or 1.
func bitsArray(d DType, shape []int, seed uint64) *Array {
	n, _ := ShapeSize(shape)
	data := MakeSlice(d, n)
	raw := rawBytes(data)
	r := rand.New(rand.NewPCG(seed, uint64(d)))
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	if d == Bool {
		for i := range raw {
			raw[i] &= 1
		}
	}
	return &Array{dtype: d, shape: clone(shape), data: data}
}

func TestNPYRoundTrip(t *testing.T) {
	opts := []NPYOptions{{}, {BigEndian: true}, {Fortran: true}, {BigEndian: true, Fortran: true, Version: 2}, {Version: 3}}
	for _, d := range StandardDTypes() { // the narrow ones have no .npy descr (TestNarrowFiles)
		for _, shape := range fileShapes {
			for _, o := range opts {
				a := bitsArray(d, shape, 1)
				var buf bytes.Buffer
				if err := WriteNPYWith(&buf, a, o); err != nil {
					t.Fatalf("%s%v %+v: write: %v", d, shape, o, err)
				}
				if buf.Len()%64 != 0 && a.Size() == 0 {
					t.Errorf("%s%v %+v: the file is %d bytes, the header is not padded to 64", d, shape, o, buf.Len())
				}
				b, err := ReadNPY(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatalf("%s%v %+v: read: %v", d, shape, o, err)
				}
				if !Equal(a, b) {
					t.Errorf("%s%v %+v: read back %v, wrote %v", d, shape, o, b, a)
				}
				// The same through a reader that cannot seek: memory then
				// follows the data.
				c, err := ReadNPY(struct{ *bytes.Buffer }{bytes.NewBuffer(buf.Bytes())})
				if err != nil || !Equal(a, c) {
					t.Errorf("%s%v %+v: read from a stream: %v, %v", d, shape, o, c, err)
				}
			}
		}
	}
}

// A Fortran-order file lays out the transpose: the reader returns the
// row-major array NumPy shows.
func TestNPYFortranOrder(t *testing.T) {
	// np.asfortranarray(np.arange(6, dtype='<i2').reshape(2, 3)) saved.
	var buf bytes.Buffer
	header := "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }"
	buf.WriteString(npyMagic + "\x01\x00")
	binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
	for _, v := range []int16{0, 3, 1, 4, 2, 5} { // column by column
		binary.Write(&buf, binary.LittleEndian, v)
	}
	a, err := ReadNPY(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.String(); got != "i16[2,3] [[0 1 2] [3 4 5]]" {
		t.Errorf("read %s", got)
	}
}

func TestNPYHeaderLayout(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteNPY(&buf, Must(FromSlice([]float32{1, 2, 3}))); err != nil {
		t.Fatal(err)
	}
	want := "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }" + strings.Repeat(" ", 60) + "\n"
	if got := buf.String()[:128]; got != want {
		t.Errorf("header\n%q, want\n%q", got, want)
	}
	buf.Reset()
	if err := WriteNPY(&buf, Scalar(BFloat16FromFloat32(1))); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "{'descr': '<V2', 'fortran_order': False, 'shape': (), }") {
		t.Errorf("bf16 scalar header: %q", buf.String())
	}
}

func npyFile(header string, data []byte) []byte {
	b := []byte(npyMagic + "\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(header)))
	return append(append(b, header...), data...)
}

// Every malformed .npy is a *FileError saying what is wrong.
func TestNPYMalformed(t *testing.T) {
	good := "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
	v2 := func(n uint32) []byte { return binary.LittleEndian.AppendUint32([]byte(npyMagic+"\x02\x00"), n) }
	cases := []struct {
		name, want string
		file       []byte
	}{
		{"empty", "shorter than the 10-byte preamble", nil},
		{"magic", "no \\x93NUMPY magic", []byte("\x93NUMPZ\x01\x00\x00\x00")},
		{"version", "format version 4.0", []byte(npyMagic + "\x04\x00\x00\x00")},
		{"v2 preamble cut", "12-byte preamble", []byte(npyMagic + "\x02\x00\x00\x00")},
		{"header over the limit", "over the limit", v2(MaxNPYHeader + 1)},
		{"header claim past the end", "the header claims 4294967295 bytes", v2(1<<32 - 1)},
		{"header cut", "truncated", npyFile(good, nil)[:30]},
		{"data cut", "needs 8 bytes of data, the file has 4", npyFile(good, make([]byte, 4))},
		{"not a dict", "want a dict", npyFile("['descr']", nil)},
		{"missing key", "want the keys", npyFile("{'descr': '<f4', 'shape': (2,)}", nil)},
		{"extra key", "unexpected key", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", nil)},
		{"key twice", "twice", npyFile("{'descr': '<f4', 'descr': '<f4'}", nil)},
		{"unknown dtype", "not a dtype Kiln has", npyFile("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", nil)},
		{"f128", "not a dtype Kiln has", npyFile("{'descr': '<f16', 'fortran_order': False, 'shape': (2,), }", nil)},
		{"object", "not a dtype Kiln has", npyFile("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", nil)},
		{"structured", "structured dtypes", npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", nil)},
		{"negative dim", "non-negative int", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", nil)},
		{"huge dim", "does not fit an int", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", nil)},
		{"size overflow", "do not fit an int", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", nil)},
		{"bad bool", "fortran_order: want True or False", npyFile("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", nil)},
		{"(2) is not a tuple", "is not a tuple", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", nil)},
		{"trailing text", "text after the dict", npyFile(good+" x", nil)},
		{"unterminated", "unterminated string", npyFile("{'descr", nil)},
		{"v3 not utf-8", "must be UTF-8", append(binary.LittleEndian.AppendUint32([]byte(npyMagic+"\x03\x00"), 2), 0xff, 0xfe)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadNPY(bytes.NewReader(c.file))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T), want a *FileError", err, err)
			}
			if fe.Format != "npy" || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to say %q", err, c.want)
			}
		})
	}
}

// A header claiming an array over the allocation limit is refused before
// anything is allocated, with the *SizeError as the cause.
func TestNPYOverAllocLimit(t *testing.T) {
	old := SetMaxAlloc(1 << 20)
	defer SetMaxAlloc(old)
	file := npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1000, 1000), }", nil)
	_, err := ReadNPY(io.MultiReader(bytes.NewReader(file))) // no Seek: only the limit stops it
	var se *SizeError
	var fe *FileError
	if !errors.As(err, &se) || !errors.As(err, &fe) {
		t.Fatalf("error %v, want a *FileError wrapping a *SizeError", err)
	}
}

// A stream that claims a large array but ends early costs memory for the
// bytes that came, not the claim.
func TestNPYStreamClaimsMore(t *testing.T) {
	defer SetMaxAlloc(SetMaxAlloc(4 << 30)) // the claim is within the limit: only the stream's end stops it
	file := npyFile("{'descr': '<u1', 'fortran_order': False, 'shape': (1000000000,), }", []byte{1, 2, 3})
	var before, after runtimeMem
	before.read()
	_, err := ReadNPY(io.MultiReader(bytes.NewReader(file)))
	after.read()
	if err == nil || !strings.Contains(err.Error(), "the file has 3") {
		t.Fatalf("error %v, want a truncation", err)
	}
	if grew := after.total - before.total; grew > 200<<20 {
		t.Errorf("reading 3 bytes that claim 1 GB allocated %d bytes", grew)
	}
}

func TestNPYBoolBytes(t *testing.T) {
	a, err := ReadNPY(bytes.NewReader(npyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", []byte{0, 1, 7})))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.String(); got != "bool[3] [false true true]" {
		t.Errorf("read %s", got)
	}
	if b := rawBytes(a.data); b[2] != 1 {
		t.Errorf("a bool read from byte 7 is stored as %d", b[2])
	}
}

func TestNPZRoundTrip(t *testing.T) {
	var arrays []NamedArray
	for _, d := range StandardDTypes() {
		arrays = append(arrays, NamedArray{Name: d.LongName(), Array: bitsArray(d, []int{3, 2}, 2)})
	}
	arrays = append(arrays, NamedArray{Name: "scalar", Array: Scalar(int32(-7))}, NamedArray{Name: "empty", Array: bitsArray(F32, []int{0, 4}, 3)})
	for _, compress := range []bool{false, true} {
		var buf bytes.Buffer
		if err := WriteNPZ(&buf, arrays, compress); err != nil {
			t.Fatal(err)
		}
		got, err := ReadNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatalf("compress=%v: %v", compress, err)
		}
		if len(got) != len(arrays) {
			t.Fatalf("compress=%v: read %d arrays, wrote %d", compress, len(got), len(arrays))
		}
		for i, na := range got {
			if na.Name != arrays[i].Name || !Equal(na.Array, arrays[i].Array) {
				t.Errorf("compress=%v: array %d is %s %v, wrote %s %v", compress, i, na.Name, na.Array, arrays[i].Name, arrays[i].Array)
			}
		}
	}
	if err := WriteNPZ(&bytes.Buffer{}, []NamedArray{arrays[0], arrays[0]}, false); err == nil {
		t.Error("two arrays of one name were written")
	}
}

func TestNPZMalformed(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteNPZ(&buf, []NamedArray{{"x", Must(FromSlice([]float32{1, 2, 3, 4}))}}, false); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	corrupt := bytes.Clone(good)
	i := bytes.Index(corrupt, []byte("'shape': (4,)"))
	corrupt[i+len("'shape': (")] = '5' // the header now claims more data than the member has
	flipped := bytes.Clone(good)
	flipped[bytes.Index(flipped, []byte("\n"))+2] ^= 0xff // a data byte: the CRC fails
	cases := []struct {
		name, want string
		file       []byte
	}{
		{"not a zip", "not a readable zip archive", []byte("hello")},
		{"cut", "not a readable zip archive", good[:len(good)-10]},
		{"lying npy header", "needs 20 bytes of data, the file has 16", corrupt},
		{"bad crc", "corrupt", flipped},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadNPZ(bytes.NewReader(c.file), int64(len(c.file)))
			var fe *FileError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want a *FileError saying %q", err, c.want)
			}
		})
	}
}

var safetensorsDTypeList = []DType{Bool, U8, I8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64}

func TestSafetensorsRoundTrip(t *testing.T) {
	var arrays []NamedArray
	for i, d := range safetensorsDTypeList {
		arrays = append(arrays, NamedArray{Name: "t." + d.String(), Array: bitsArray(d, fileShapes[i%len(fileShapes)], 4)})
	}
	meta := map[string]string{"format": "pt", "note": "kiln"}
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, arrays, meta); err != nil {
		t.Fatal(err)
	}
	hlen := binary.LittleEndian.Uint64(buf.Bytes())
	if hlen%8 != 0 {
		t.Errorf("the header is %d bytes, not a multiple of 8", hlen)
	}
	got, gotMeta, err := ReadSafetensors(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(gotMeta) != fmt.Sprint(meta) {
		t.Errorf("metadata %v, wrote %v", gotMeta, meta)
	}
	checkSameTensors(t, "ReadSafetensors", got, arrays)

	path := filepath.Join(t.TempDir(), "w.safetensors")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	checkSameTensors(t, "OpenSafetensors", f.Tensors(), arrays)
	if f.Mapped() != len(arrays) {
		t.Errorf("%d of %d arrays view the mapping; WriteSafetensors aligns them all", f.Mapped(), len(arrays))
	}
	if fmt.Sprint(f.Metadata()) != fmt.Sprint(meta) {
		t.Errorf("metadata %v, wrote %v", f.Metadata(), meta)
	}
	if a, ok := f.Lookup("t.f32"); !ok || !Equal(a, arrays[11].Array) {
		t.Errorf("Lookup(t.f32) = %v, %v", a, ok)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if _, ok := f.Lookup("t.f32"); ok {
		t.Error("Lookup works after Close")
	}
}

func checkSameTensors(t *testing.T, what string, got, want []NamedArray) {
	t.Helper()
	byName := map[string]*Array{}
	for _, na := range got {
		byName[na.Name] = na.Array
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d tensors, wrote %d", what, len(got), len(want))
	}
	for _, na := range want {
		if g := byName[na.Name]; g == nil || !Equal(g, na.Array) {
			t.Errorf("%s: %s is %v, wrote %v", what, na.Name, g, na.Array)
		}
	}
}

// An unaligned tensor (the format allows it) is copied, not viewed; a
// view is inside the mapping.
func TestSafetensorsUnaligned(t *testing.T) {
	header := `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"F32","shape":[2],"data_offsets":[1,9]},"c":{"dtype":"BOOL","shape":[2],"data_offsets":[9,11]}}`
	for len(header)%8 != 0 {
		header += " "
	}
	file := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	file = append(file, header...)
	file = append(file, 7)
	file = binary.LittleEndian.AppendUint32(file, 0x3f800000)
	file = binary.LittleEndian.AppendUint32(file, 0x80000000)
	file = append(file, 0, 5) // a bool byte of 5 reads as true
	path := filepath.Join(t.TempDir(), "u.safetensors")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Mapped() != 1 {
		t.Errorf("%d arrays view the mapping, want 1 (a; b is unaligned, c has a byte 5)", f.Mapped())
	}
	got := fmt.Sprint(f.Names(), f.Tensors())
	if want := "[a b c] [{a u8[1] [7]} {b f32[2] [1 -0]} {c bool[2] [false true]}]"; got != want {
		t.Errorf("read %s, want %s", got, want)
	}
	a, _ := f.Lookup("a")
	b, _ := f.Lookup("b")
	if !inMapping(f, unsafe.Pointer(&a.data.([]uint8)[0])) {
		t.Error("a does not view the mapping")
	}
	if inMapping(f, unsafe.Pointer(&b.data.([]float32)[0])) {
		t.Error("b, unaligned, views the mapping")
	}
}

func inMapping(f *SafetensorsFile, p unsafe.Pointer) bool {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(f.mem)))
	return uintptr(p) >= lo && uintptr(p) < lo+uintptr(len(f.mem))
}

// runtimeMem is the bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

func stFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(b, header...), data...)
}

// Every malformed safetensors file is a *FileError saying what is wrong.
func TestSafetensorsMalformed(t *testing.T) {
	f32 := func(off string) string { return `{"x":{"dtype":"F32","shape":[2],"data_offsets":` + off + `}}` }
	cases := []struct {
		name, want string
		file       []byte
	}{
		{"empty", "shorter than the 8-byte header length", nil},
		{"header over the limit", "over the limit", binary.LittleEndian.AppendUint64(nil, MaxSafetensorsHeader+1)},
		{"header past the end", "the header claims 100 bytes, the file has 2", append(binary.LittleEndian.AppendUint64(nil, 100), "{}"...)},
		{"header length 2^64-1", "over the limit", binary.LittleEndian.AppendUint64(nil, 1<<64-1)},
		{"not json", "not a JSON object", stFile("[1]", nil)},
		{"bad json", "header", stFile(`{"x":`, nil)},
		{"trailing text", "text after the JSON object", stFile(`{} x`, nil)},
		{"unknown dtype", `unknown dtype "F7"`, stFile(`{"x":{"dtype":"F7","shape":[],"data_offsets":[0,0]}}`, nil)},
		{"f4", "dtype F4 is not one Kiln has", stFile(`{"x":{"dtype":"F4","shape":[1],"data_offsets":[0,1]}}`, []byte{0})},
		{"missing field", "needs dtype, shape and data_offsets", stFile(`{"x":{"dtype":"F32","shape":[2]}}`, make([]byte, 8))},
		{"negative dim", "negative dimension", stFile(`{"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`, nil)},
		{"float dim", "header", stFile(`{"x":{"dtype":"F32","shape":[1.5],"data_offsets":[0,0]}}`, nil)},
		{"size overflow", "do not fit an int", stFile(`{"x":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, nil)},
		{"shape vs bytes", "needs 8 bytes, data_offsets [0 4] hold 4", stFile(f32("[0,4]"), make([]byte, 4))},
		{"offsets reversed", "want [begin, end]", stFile(f32("[8,0]"), make([]byte, 8))},
		{"three offsets", "want [begin, end]", stFile(f32("[0,4,8]"), make([]byte, 8))},
		{"out of range", "the tensors hold 8 bytes of data, the file has 4", stFile(f32("[0,8]"), make([]byte, 4))},
		{"gap", "leave a gap", stFile(f32("[4,12]"), make([]byte, 12))},
		{"trailing data", "the file has 12", stFile(f32("[0,8]"), make([]byte, 12))},
		{"overlap", "overlap", stFile(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8))},
		{"duplicate", "appears twice", stFile(`{"x":{"dtype":"U8","shape":[],"data_offsets":[0,1]},"x":{"dtype":"U8","shape":[],"data_offsets":[1,2]}}`, make([]byte, 2))},
		{"bad metadata", "__metadata__ must map strings to strings", stFile(`{"__metadata__":{"a":1}}`, nil)},
		{"huge offsets", "data_offsets", stFile(`{"x":{"dtype":"U8","shape":[1],"data_offsets":[9223372036854775806,9223372036854775807]}}`, nil)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadSafetensors(bytes.NewReader(c.file), int64(len(c.file)))
			var fe *FileError
			if !errors.As(err, &fe) || fe.Format != "safetensors" || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ReadSafetensors: error %v, want a *FileError saying %q", err, c.want)
			}
			path := filepath.Join(t.TempDir(), "m.safetensors")
			if err := os.WriteFile(path, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := OpenSafetensors(path)
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("OpenSafetensors: error %v, want a *FileError naming the file and saying %q", err, c.want)
			}
			if f != nil {
				f.Close()
			}
		})
	}
}

func TestSafetensorsWriteRefuses(t *testing.T) {
	x := Must(FromSlice([]float32{1}))
	cases := []struct {
		name    string
		tensors []NamedArray
		want    string
	}{
		{"complex", []NamedArray{{"c", Scalar(complex64(1))}}, "no c64 dtype"},
		{"duplicate", []NamedArray{{"x", x}, {"x", x}}, "unique"},
		{"metadata name", []NamedArray{{"__metadata__", x}}, "unique"},
		{"nil", []NamedArray{{"x", nil}}, "not an array"},
	}
	for _, c := range cases {
		err := WriteSafetensors(&bytes.Buffer{}, c.tensors, nil)
		var fe *FileError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a *FileError saying %q", c.name, err, c.want)
		}
	}
}
