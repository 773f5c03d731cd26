package tensor

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"unicode/utf8"
	"unsafe"
)

// safetensorsDTypes maps the safetensors dtype names to Kiln's. The 8-bit
// floats safetensors names are PyTorch's float8_e4m3fn, float8_e5m2 and
// float8_e8m0fnu, one byte per element as Kiln stores them. Its F4, F6_E2M3
// and F6_E3M2 are packed below a byte and C64 has no Kiln reading; those
// names are known, and read as an error that says so. Kiln's other narrow
// dtypes have no safetensors name: writing one is a *FileError.
var safetensorsDTypes = map[string]DType{
	"BOOL": Bool, "U8": U8, "I8": I8, "I16": I16, "U16": U16, "I32": I32, "U32": U32,
	"I64": I64, "U64": U64, "F16": F16, "BF16": BF16, "F32": F32, "F64": F64,
	"F8_E4M3": F8E4M3FN, "F8_E5M2": F8E5M2, "F8_E8M0": F8E8M0FNU,
}

var safetensorsOnly = map[string]bool{
	"F4": true, "F6_E2M3": true, "F6_E3M2": true, "C64": true,
}

func safetensorsName(d DType) string {
	for name, sd := range safetensorsDTypes {
		if sd == d {
			return name
		}
	}
	return ""
}

// safetensorsEntry is one tensor of a header: its data is
// data[begin:end] of the byte buffer after the header.
type safetensorsEntry struct {
	name       string
	dtype      DType
	shape      []int
	begin, end int64
}

// SafetensorsFile is a safetensors file opened by OpenSafetensors: its
// arrays view the file's read-only memory mapping where they can, and are
// valid only until Close.
type SafetensorsFile struct {
	path     string
	tensors  []NamedArray
	index    map[string]int
	metadata map[string]string
	views    int
	mem      []byte // the mapping
	unmap    func() error
}

// OpenSafetensors opens the safetensors file at path and maps it into
// memory read-only (on Linux; elsewhere it reads it), so that opening a
// file of weights costs no copy. The header is checked completely (see
// ReadSafetensors) before any array is made.
//
// An array views the mapping when its data is aligned for its dtype (the
// safetensors format does not promise it; files written by
// WriteSafetensors and by the reference implementation are aligned), the
// machine is little-endian, and, for bool, every byte is 0 or 1;
// otherwise it is a copy. A view must not be written (the mapping is
// read-only: a write faults; Kiln never writes its inputs, but an array
// given to kiln's Func.Release would be written) and must not be used
// after Close, which unmaps the file; Clone an array to keep it or write
// it. A file never closed stays mapped until the process exits (no
// finalizer unmaps it under arrays still in use). The file must not be
// truncated while it is open.
func OpenSafetensors(path string) (*SafetensorsFile, error) {
	bad := func(off int64, cause error, format string, args ...any) error {
		return &FileError{Op: "read", Format: "safetensors", Name: path, Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, bad(-1, err, "cannot open")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, bad(-1, err, "cannot stat")
	}
	size := st.Size()
	var pre [8]byte
	if _, err := f.ReadAt(pre[:], 0); err != nil {
		return nil, bad(0, errOrNil(err), "truncated: shorter than the 8-byte header length")
	}
	hlen, err := checkSafetensorsHeaderLen(binary.LittleEndian.Uint64(pre[:]), size)
	if err != nil {
		err.(*FileError).Name = path
		return nil, err
	}
	mem, unmap, err := mapFile(f, size)
	if err != nil {
		return nil, bad(-1, err, "cannot map")
	}
	sf, err := newSafetensorsFile(path, mem, hlen)
	if err != nil {
		unmap()
		return nil, err
	}
	sf.mem, sf.unmap = mem, unmap
	return sf, nil
}

func newSafetensorsFile(path string, mem []byte, hlen int64) (*SafetensorsFile, error) {
	data := mem[8+hlen:]
	entries, meta, err := parseSafetensorsHeader(mem[8:8+hlen], int64(len(data)))
	if err != nil {
		err.(*FileError).Name = path
		return nil, err
	}
	sf := &SafetensorsFile{path: path, index: map[string]int{}, metadata: meta}
	for _, e := range entries {
		b := data[e.begin:e.end]
		n := len(b) / e.dtype.Size()
		var a any
		aligned := len(b) == 0 || uintptr(unsafe.Pointer(&b[0]))%alignOf(e.dtype) == 0
		if aligned && (littleEndianHost || e.dtype.Size() == 1) && (e.dtype != Bool || !needsBoolFix(b)) {
			a, sf.views = viewBytes(e.dtype, b, n), sf.views+1
		} else {
			if _, err := checkAlloc("OpenSafetensors", e.dtype, e.shape); err != nil {
				return nil, &FileError{Op: "read", Format: "safetensors", Name: path + ":" + e.name, Offset: 8 + hlen + e.begin, Msg: "cannot copy the unaligned tensor", Err: err}
			}
			a = MakeSlice(e.dtype, n)
			raw := rawBytes(a)
			copy(raw, b)
			fixSafetensorsBytes(raw, e.dtype)
		}
		sf.index[e.name] = len(sf.tensors)
		sf.tensors = append(sf.tensors, NamedArray{Name: e.name, Array: &Array{dtype: e.dtype, shape: e.shape, data: a}})
	}
	return sf, nil
}

// fixSafetensorsBytes turns little-endian file bytes, copied into an
// array's memory, into the array's values.
func fixSafetensorsBytes(raw []byte, d DType) {
	if !littleEndianHost {
		swapBytes(raw, swapUnit(d))
	}
	if d == Bool {
		fixBools(raw)
	}
}

// Tensors returns the file's arrays in the order of their data in the
// file. They are valid until Close.
func (f *SafetensorsFile) Tensors() []NamedArray { return slices.Clone(f.tensors) }

// Lookup returns the array named name; ok is false when the file has
// none (or is closed).
func (f *SafetensorsFile) Lookup(name string) (a *Array, ok bool) {
	i, ok := f.index[name]
	if !ok {
		return nil, false
	}
	return f.tensors[i].Array, true
}

// Names returns the tensors' names in file order.
func (f *SafetensorsFile) Names() []string {
	out := make([]string, len(f.tensors))
	for i, t := range f.tensors {
		out[i] = t.Name
	}
	return out
}

// Metadata returns a copy of the header's __metadata__ (empty when it has
// none).
func (f *SafetensorsFile) Metadata() map[string]string {
	out := make(map[string]string, len(f.metadata))
	for k, v := range f.metadata {
		out[k] = v
	}
	return out
}

// Mapped reports how many of the file's arrays view the mapping rather
// than copies.
func (f *SafetensorsFile) Mapped() int { return f.views }

// Close unmaps the file. Arrays that view the mapping must not be used
// afterwards. Close is idempotent.
func (f *SafetensorsFile) Close() error {
	f.tensors, f.index, f.mem = nil, nil, nil
	if f.unmap == nil {
		return nil
	}
	unmap := f.unmap
	f.unmap = nil
	if err := unmap(); err != nil {
		return &FileError{Op: "read", Format: "safetensors", Name: f.path, Offset: -1, Msg: "cannot unmap", Err: err}
	}
	return nil
}

// checkSafetensorsHeaderLen checks the header length a file of size
// bytes claims.
func checkSafetensorsHeaderLen(n uint64, size int64) (int64, error) {
	bad := func(format string, args ...any) error {
		return &FileError{Op: "read", Format: "safetensors", Offset: 0, Msg: fmt.Sprintf(format, args...)}
	}
	if size < 8 {
		return 0, bad("truncated: shorter than the 8-byte header length")
	}
	if n > MaxSafetensorsHeader {
		return 0, bad("the header claims %d bytes, over the limit of %d (tensor.MaxSafetensorsHeader)", n, MaxSafetensorsHeader)
	}
	if int64(n) > size-8 {
		return 0, bad("truncated: the header claims %d bytes, the file has %d after the length", n, size-8)
	}
	return int64(n), nil
}

// ReadSafetensors reads every tensor of a safetensors file of size bytes
// into new arrays, in the order of their data, with the header's
// __metadata__ (empty when absent). Safetensors are little-endian; the
// dtypes are BOOL U8 I8 I16 U16 I32 U32 I64 U64 F16 BF16 F32 F64 (a BOOL
// byte other than 0 reads as true).
//
// The whole header is checked before any array is allocated: its length
// against MaxSafetensorsHeader and the file's size, then each tensor's
// dtype, shape and data_offsets — the tensors must tile the data after
// the header exactly, in order, without gaps or overlaps, each with
// shape × itemsize bytes, as the reference implementation requires. A
// file that fails is a *FileError naming the tensor and what is wrong.
func ReadSafetensors(r io.ReaderAt, size int64) ([]NamedArray, map[string]string, error) {
	var pre [8]byte
	if _, err := r.ReadAt(pre[:], 0); err != nil {
		return nil, nil, &FileError{Op: "read", Format: "safetensors", Offset: 0, Msg: "truncated: shorter than the 8-byte header length", Err: errOrNil(err)}
	}
	hlen, err := checkSafetensorsHeaderLen(binary.LittleEndian.Uint64(pre[:]), size)
	if err != nil {
		return nil, nil, err
	}
	hb := make([]byte, hlen)
	if _, err := r.ReadAt(hb, 8); err != nil {
		return nil, nil, &FileError{Op: "read", Format: "safetensors", Offset: 8, Msg: "reading the header", Err: err}
	}
	entries, meta, err := parseSafetensorsHeader(hb, size-8-hlen)
	if err != nil {
		return nil, nil, err
	}
	out := make([]NamedArray, 0, len(entries))
	for _, e := range entries {
		at := 8 + hlen + e.begin
		if _, err := checkAlloc("ReadSafetensors", e.dtype, e.shape); err != nil {
			return nil, nil, &FileError{Op: "read", Format: "safetensors", Name: e.name, Offset: at, Msg: "cannot read the tensor", Err: err}
		}
		data := MakeSlice(e.dtype, int(e.end-e.begin)/e.dtype.Size())
		raw := rawBytes(data)
		if len(raw) > 0 {
			if _, err := r.ReadAt(raw, at); err != nil {
				return nil, nil, &FileError{Op: "read", Format: "safetensors", Name: e.name, Offset: at, Msg: "reading the data", Err: err}
			}
		}
		fixSafetensorsBytes(raw, e.dtype)
		out = append(out, NamedArray{Name: e.name, Array: &Array{dtype: e.dtype, shape: e.shape, data: data}})
	}
	return out, meta, nil
}

// ReadSafetensorsFile reads the safetensors file at path into new arrays
// (see ReadSafetensors; OpenSafetensors maps it instead).
func ReadSafetensorsFile(path string) ([]NamedArray, map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &FileError{Op: "read", Format: "safetensors", Name: path, Offset: -1, Msg: "cannot open", Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, &FileError{Op: "read", Format: "safetensors", Name: path, Offset: -1, Msg: "cannot stat", Err: err}
	}
	out, meta, err := ReadSafetensors(f, st.Size())
	if fe, ok := err.(*FileError); ok {
		if fe.Name == "" {
			fe.Name = path
		} else {
			fe.Name = path + ":" + fe.Name
		}
	}
	return out, meta, err
}

// parseSafetensorsHeader parses and checks a JSON header followed by
// dataLen bytes of data; the entries come sorted by offset.
func parseSafetensorsHeader(hb []byte, dataLen int64) ([]safetensorsEntry, map[string]string, error) {
	bad := func(name string, format string, args ...any) error {
		return &FileError{Op: "read", Format: "safetensors", Name: name, Offset: 8, Msg: fmt.Sprintf(format, args...)}
	}
	if len(hb) == 0 || hb[0] != '{' {
		return nil, nil, bad("", "the header is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(hb))
	if _, err := dec.Token(); err != nil {
		return nil, nil, bad("", "header: %v", err)
	}
	meta := map[string]string{}
	seen := map[string]bool{}
	var entries []safetensorsEntry
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, bad("", "header: %v", err)
		}
		name, _ := tok.(string)
		if seen[name] {
			return nil, nil, bad(name, "header: the key %q appears twice", name)
		}
		seen[name] = true
		if name == "__metadata__" {
			var m map[string]string
			if err := dec.Decode(&m); err != nil {
				return nil, nil, bad("", "__metadata__ must map strings to strings: %v", err)
			}
			for k, v := range m {
				meta[k] = v
			}
			continue
		}
		info, err := decodeSafetensorsInfo(dec)
		if err != nil {
			return nil, nil, bad(name, "header: %v", err)
		}
		if info.DType == nil || info.Shape == nil || info.Offsets == nil {
			return nil, nil, bad(name, "header: a tensor needs dtype, shape and data_offsets")
		}
		d, ok := safetensorsDTypes[*info.DType]
		switch {
		case ok:
		case safetensorsOnly[*info.DType]:
			return nil, nil, bad(name, "dtype %s is not one Kiln has", *info.DType)
		default:
			return nil, nil, bad(name, "unknown dtype %q", *info.DType)
		}
		if len(info.Offsets) != 2 || info.Offsets[0] < 0 || info.Offsets[1] < info.Offsets[0] {
			return nil, nil, bad(name, "data_offsets %v: want [begin, end] with 0 ≤ begin ≤ end", info.Offsets)
		}
		nbytes, err := byteSize("", d, info.Shape)
		if err != nil {
			return nil, nil, bad(name, "shape %v of %s: %v", info.Shape, d, err)
		}
		if int64(nbytes) != info.Offsets[1]-info.Offsets[0] {
			return nil, nil, bad(name, "shape %s of %s needs %d bytes, data_offsets %v hold %d", shapeText(info.Shape), d, nbytes, info.Offsets, info.Offsets[1]-info.Offsets[0])
		}
		entries = append(entries, safetensorsEntry{name: name, dtype: d, shape: info.Shape, begin: info.Offsets[0], end: info.Offsets[1]})
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, bad("", "header: %v", err)
	}
	if rest := bytes.TrimRight(hb[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, nil, bad("", "header: text after the JSON object")
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		return a.begin < b.begin || a.begin == b.begin && a.end < b.end
	})
	var at int64
	for _, e := range entries {
		switch {
		case e.begin > at:
			return nil, nil, bad(e.name, "data_offsets [%d, %d] leave a gap after byte %d of the data", e.begin, e.end, at)
		case e.begin < at:
			return nil, nil, bad(e.name, "data_offsets [%d, %d] overlap the tensor before, which ends at %d", e.begin, e.end, at)
		}
		at = e.end
	}
	if at != dataLen {
		return nil, nil, bad("", "the tensors hold %d bytes of data, the file has %d after the header", at, dataLen)
	}
	return entries, meta, nil
}

// safetensorsInfo is a tensor's entry in a safetensors header.
type safetensorsInfo struct {
	DType   *string
	Shape   []int
	Offsets []int64
}

// decodeSafetensorsInfo reads a tensor's entry, {"dtype": …, "shape": …,
// "data_offsets": …}, with its keys spelled exactly and each once, as
// the reference implementation (serde) requires: encoding/json alone
// matches keys case-insensitively and keeps the last of two, so
// {"dtype":"U8","DTYPE":"F64"} would read as F64 where the reference
// refuses it. Other keys are skipped, as serde skips them.
func decodeSafetensorsInfo(dec *json.Decoder) (safetensorsInfo, error) {
	var info safetensorsInfo
	if tok, err := dec.Token(); err != nil {
		return info, err
	} else if tok != json.Delim('{') {
		return info, fmt.Errorf("a tensor's entry must be an object, not %v", tok)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return info, err
		}
		key, _ := tok.(string)
		if seen[key] {
			return info, fmt.Errorf("the key %q appears twice", key)
		}
		seen[key] = true
		var v any
		switch key {
		case "dtype":
			v = &info.DType
		case "shape":
			v = &info.Shape
		case "data_offsets":
			v = &info.Offsets
		default:
			v = new(json.RawMessage)
		}
		if err := dec.Decode(v); err != nil {
			return info, fmt.Errorf("%s: %v", key, err)
		}
	}
	_, err := dec.Token() // the '}'
	return info, err
}

// WriteSafetensors writes tensors in the safetensors format with the
// given __metadata__ (none when empty): the 8-byte little-endian header
// length, the JSON header padded with spaces to a multiple of 8 bytes,
// then the data, little-endian, sorted by element size (largest first,
// stably), so that every tensor's data is aligned for its dtype in the
// file and in a mapping of it. Names must be unique, not empty, not
// __metadata__ and UTF-8, as must the metadata; complex arrays are
// refused (safetensors has no complex dtype Kiln's readers would share).
func WriteSafetensors(w io.Writer, tensors []NamedArray, metadata map[string]string) error {
	bad := func(name string, cause error, format string, args ...any) error {
		return &FileError{Op: "write", Format: "safetensors", Name: name, Offset: -1, Msg: fmt.Sprintf(format, args...), Err: cause}
	}
	seen := map[string]bool{}
	for _, t := range tensors {
		switch {
		case t.Name == "" || t.Name == "__metadata__" || seen[t.Name]:
			return bad(t.Name, nil, "tensor names must be unique, not empty and not __metadata__")
		case !utf8.ValidString(t.Name):
			return bad(t.Name, nil, "a tensor name must be UTF-8 (JSON would replace its bytes with U+FFFD)")
		case t.Array == nil || !t.Array.dtype.Valid() || !t.Array.made():
			return bad(t.Name, nil, "not an array made by a constructor")
		case safetensorsName(t.Array.dtype) == "":
			return bad(t.Name, nil, "safetensors has no %s dtype", t.Array.dtype)
		}
		seen[t.Name] = true
	}
	for k, v := range metadata {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return bad("", nil, "__metadata__ %q: %q: keys and values must be UTF-8 (JSON would replace their bytes with U+FFFD)", k, v)
		}
	}
	order := slices.Clone(tensors)
	sort.SliceStable(order, func(i, j int) bool { return order[i].Array.dtype.Size() > order[j].Array.dtype.Size() })
	var h bytes.Buffer
	h.WriteByte('{')
	if len(metadata) > 0 {
		m, err := json.Marshal(metadata) // sorted keys
		if err != nil {
			return bad("", err, "encoding __metadata__")
		}
		h.WriteString(`"__metadata__":`)
		h.Write(m)
	}
	var at int64
	for i, t := range order {
		if i > 0 || len(metadata) > 0 {
			h.WriteByte(',')
		}
		name, _ := json.Marshal(t.Name)
		shape, _ := json.Marshal(append([]int{}, t.Array.shape...)) // [] for rank 0, never null
		n := int64(len(rawBytes(t.Array.data)))
		fmt.Fprintf(&h, `%s:{"dtype":"%s","shape":%s,"data_offsets":[%d,%d]}`, name, safetensorsName(t.Array.dtype), shape, at, at+n)
		at += n
	}
	h.WriteByte('}')
	for h.Len()%8 != 0 {
		h.WriteByte(' ')
	}
	if h.Len() > MaxSafetensorsHeader {
		return bad("", nil, "the header would be %d bytes, over the limit of %d", h.Len(), MaxSafetensorsHeader)
	}
	var pre [8]byte
	binary.LittleEndian.PutUint64(pre[:], uint64(h.Len()))
	if _, err := w.Write(pre[:]); err != nil {
		return bad("", err, "writing the header")
	}
	if _, err := w.Write(h.Bytes()); err != nil {
		return bad("", err, "writing the header")
	}
	for _, t := range order {
		raw := rawBytes(t.Array.data)
		if !littleEndianHost && t.Array.dtype.Size() > 1 {
			raw = slices.Clone(raw)
			swapBytes(raw, swapUnit(t.Array.dtype))
		}
		if _, err := w.Write(raw); err != nil {
			return bad(t.Name, err, "writing the data")
		}
	}
	return nil
}

// WriteSafetensorsFile writes tensors to a new safetensors file at path
// (see WriteSafetensors).
func WriteSafetensorsFile(path string, tensors []NamedArray, metadata map[string]string) error {
	return writeFile(path, "safetensors", func(w io.Writer) error { return WriteSafetensors(w, tensors, metadata) })
}
