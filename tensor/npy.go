package tensor

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// npyDescr is the descr Kiln writes for each dtype, little-endian; '|'
// marks one-byte types, which have no byte order. bf16 has no NumPy
// dtype: it is written as ml_dtypes' np.save writes bfloat16, a 2-byte
// void, which NumPy loads as V2 and .view(ml_dtypes.bfloat16) restores.
var npyDescr = [NumDTypes]string{
	Bool: "|b1", U8: "|u1", U16: "<u2", U32: "<u4", U64: "<u8",
	I8: "|i1", I16: "<i2", I32: "<i4", I64: "<i8",
	BF16: "<V2", F16: "<f2", F32: "<f4", F64: "<f8", C64: "<c8", C128: "<c16",
}

// npyTypes maps a descr without its byte-order character to a dtype.
var npyTypes = map[string]DType{
	"b1": Bool, "?": Bool,
	"u1": U8, "u2": U16, "u4": U32, "u8": U64,
	"i1": I8, "i2": I16, "i4": I32, "i8": I64,
	"V2": BF16, "f2": F16, "f4": F32, "f8": F64, "c8": C64, "c16": C128,
}

// NPYOptions chooses how WriteNPYWith lays out a file. The zero value is
// what WriteNPY writes: the lowest format version that holds the header,
// little-endian, C (row-major) order.
type NPYOptions struct {
	BigEndian bool // write '>' descrs (bytes swapped)
	Fortran   bool // write the data in Fortran (column-major) order
	Version   int  // 1, 2 or 3; 0 for the lowest that fits (1.0, or 2.0 for a header over 65535 bytes)
}

// ReadNPY reads one array in NumPy's .npy format, versions 1.0, 2.0 and
// 3.0, of any dtype Kiln has, in either byte order and in C or Fortran
// order (returned row-major). A 2-byte void descr ('<V2', '|V2') is read
// as bf16. Bytes after the array are not read. A file Kiln cannot read is
// a *FileError; an array over MaxAlloc a *FileError wrapping a *SizeError.
//
// When r is an io.Seeker (an *os.File, a *bytes.Reader), the bytes left
// are checked against the header's claim before the array is allocated;
// otherwise memory is taken as the data arrives.
func ReadNPY(r io.Reader) (*Array, error) {
	left := int64(-1)
	if s, ok := r.(io.Seeker); ok {
		if cur, err := s.Seek(0, io.SeekCurrent); err == nil {
			if end, err := s.Seek(0, io.SeekEnd); err == nil {
				if _, err := s.Seek(cur, io.SeekStart); err == nil {
					left = end - cur
				}
			}
		}
	}
	return readNPY(r, left, left >= 0, "npy", "")
}

// ReadNPYFile reads the .npy file at path (see ReadNPY).
func ReadNPYFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &FileError{Op: "read", Format: "npy", Name: path, Offset: -1, Msg: "cannot open", Err: err}
	}
	defer f.Close()
	a, err := ReadNPY(f)
	if fe, ok := err.(*FileError); ok && fe.Name == "" {
		fe.Name = path
	}
	return a, err
}

// readNPY reads a .npy stream with left bytes (-1 when unknown); sure
// says left is known, not only claimed, so the data may be allocated at
// once.
func readNPY(r io.Reader, left int64, sure bool, format, name string) (*Array, error) {
	bad := func(off int64, cause error, format_ string, args ...any) error {
		return &FileError{Op: "read", Format: format, Name: name, Offset: off, Msg: fmt.Sprintf(format_, args...), Err: cause}
	}
	var pre [12]byte
	if _, err := io.ReadFull(r, pre[:10]); err != nil {
		if isEOF(err) {
			return nil, bad(0, nil, "truncated: %s", "shorter than the 10-byte preamble")
		}
		return nil, bad(0, err, "reading the preamble")
	}
	if string(pre[:6]) != npyMagic {
		return nil, bad(0, nil, "not a .npy file (no \\x93NUMPY magic)")
	}
	major, minor := pre[6], pre[7]
	var hlen, start int64
	switch {
	case major == 1 && minor == 0:
		hlen, start = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case (major == 2 || major == 3) && minor == 0:
		if _, err := io.ReadFull(r, pre[10:12]); err != nil {
			return nil, bad(10, errOrNil(err), "truncated: shorter than the 12-byte preamble of version %d.0", major)
		}
		hlen, start = int64(binary.LittleEndian.Uint32(pre[8:12])), 12
	default:
		return nil, bad(6, nil, "format version %d.%d is not one Kiln reads (1.0, 2.0, 3.0)", major, minor)
	}
	if hlen > MaxNPYHeader {
		return nil, bad(8, nil, "the header claims %d bytes, over the limit of %d (tensor.MaxNPYHeader)", hlen, MaxNPYHeader)
	}
	if left >= 0 && start+hlen > left {
		return nil, bad(8, nil, "truncated: the header claims %d bytes, the file has %d after the preamble", hlen, left-start)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, bad(start, errOrNil(err), "truncated: the header claims %d bytes", hlen)
	}
	var text string
	if major == 3 {
		if !utf8.Valid(hb) {
			return nil, bad(start, nil, "a version 3.0 header must be UTF-8")
		}
		text = string(hb)
	} else {
		text = latin1(hb)
	}
	h, err := parseNPYHeader(text)
	if err != nil {
		return nil, bad(start, nil, "header %q: %v", clip(text), err)
	}
	d, big, err := npyDType(h.descr)
	if err != nil {
		return nil, bad(start, nil, "%v", err)
	}
	nbytes, err := checkAlloc("ReadNPY", d, h.shape)
	if err != nil {
		return nil, bad(start, err, "the header's shape cannot be read")
	}
	dataAt := start + hlen
	if left >= 0 && int64(nbytes) > left-dataAt {
		return nil, bad(dataAt, nil, "truncated: shape %s of %s needs %d bytes of data, the file has %d", shapeText(h.shape), d, nbytes, left-dataAt)
	}
	n := nbytes / d.Size()
	data, got, err := readInto(r, d, n, nbytes, sure)
	if err != nil {
		return nil, bad(dataAt+int64(got), errOrNil(err), "truncated: shape %s of %s needs %d bytes of data, the file has %d", shapeText(h.shape), d, nbytes, got)
	}
	raw := rawBytes(data)
	if big == littleEndianHost {
		swapBytes(raw, swapUnit(d))
	}
	if d == Bool {
		fixBools(raw)
	}
	if h.fortran && len(h.shape) > 1 && n > 1 {
		c := MakeSlice(d, n)
		reorder(rawBytes(c), raw, h.shape, d.Size(), true)
		data = c
	}
	return &Array{dtype: d, shape: h.shape, data: data}, nil
}

// errOrNil drops the EOF errors a truncation message already says.
func errOrNil(err error) error {
	if isEOF(err) {
		return nil
	}
	return err
}

func latin1(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		s.WriteRune(rune(c))
	}
	return s.String()
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// npyDType reads a descr: a byte-order character ('<', '>', '|' or '='
// for the machine's) and a type; big reports a big-endian file.
func npyDType(descr string) (d DType, big bool, err error) {
	if descr == "" {
		return 0, false, fmt.Errorf("empty descr")
	}
	typ := descr[1:]
	switch descr[0] {
	case '<':
	case '|', '=': // no byte order, or the machine's: NumPy reads both as native
		big = !littleEndianHost
	case '>':
		big = true
	default: // no byte order: the machine's, as NumPy reads it
		typ, big = descr, !littleEndianHost
	}
	d, ok := npyTypes[typ]
	if !ok {
		return 0, false, fmt.Errorf("descr %q is not a dtype Kiln has (bool, u1…u8, i1…i8, V2 for bf16, f2, f4, f8, c8, c16)", descr)
	}
	if d == BF16 {
		big = false // a void has no byte order: bf16's bits are stored little-endian, as ml_dtypes does on every host Kiln runs on
	}
	return d, big, nil
}

type npyHeader struct {
	descr   string
	fortran bool
	shape   []int
}

// parseNPYHeader parses the Python dict literal of a .npy header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } — exactly
// these three keys, as NumPy requires.
func parseNPYHeader(s string) (npyHeader, error) {
	p := &pyParser{s: s}
	var h npyHeader
	if !p.eat('{') {
		return h, fmt.Errorf("want a dict")
	}
	seen := map[string]bool{}
	for {
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, fmt.Errorf("key: %v", err)
		}
		if seen[key] {
			return h, fmt.Errorf("key %q twice", key)
		}
		seen[key] = true
		if !p.eat(':') {
			return h, fmt.Errorf("want ':' after %q", key)
		}
		switch key {
		case "descr":
			if p.peek() == '[' {
				return h, fmt.Errorf("structured dtypes (a list descr) are not supported")
			}
			if h.descr, err = p.str(); err != nil {
				return h, fmt.Errorf("descr: %v", err)
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return h, fmt.Errorf("fortran_order: want True or False")
			}
		case "shape":
			if h.shape, err = p.intTuple(); err != nil {
				return h, fmt.Errorf("shape: %v", err)
			}
		default:
			return h, fmt.Errorf("unexpected key %q (want descr, fortran_order, shape)", key)
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return h, fmt.Errorf("want ',' or '}' at %d", p.i)
			}
			break
		}
	}
	p.space()
	if p.i != len(p.s) {
		return h, fmt.Errorf("text after the dict")
	}
	if len(seen) != 3 {
		return h, fmt.Errorf("want the keys descr, fortran_order and shape")
	}
	return h, nil
}

// pyParser reads the few Python literals a .npy header has. It never
// recurses, so no header can exhaust the stack.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) word(w string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], w) {
		end := p.i + len(w)
		if end == len(p.s) || !isWordByte(p.s[end]) {
			p.i = end
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// str reads a quoted string without escapes (NumPy's keys and descrs have
// none).
func (p *pyParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", fmt.Errorf("want a quoted string at %d", p.i)
	}
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", fmt.Errorf("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", fmt.Errorf("escapes in %q are not supported", v)
	}
	p.i += end + 2
	return v, nil
}

// intTuple reads (), (n,) or (n, m, …), ints ≥ 0 (a Python 2 L suffix
// allowed).
func (p *pyParser) intTuple() ([]int, error) {
	if !p.eat('(') {
		return nil, fmt.Errorf("want a tuple")
	}
	shape := []int{}
	for {
		if p.eat(')') {
			return shape, nil
		}
		p.space()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, fmt.Errorf("want a non-negative int at %d", p.i)
		}
		v, err := strconv.Atoi(p.s[p.i:j])
		if err != nil {
			return nil, fmt.Errorf("dimension %s does not fit an int", p.s[p.i:j])
		}
		if j < len(p.s) && (p.s[j] == 'L' || p.s[j] == 'l') {
			j++
		}
		p.i = j
		shape = append(shape, v)
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, fmt.Errorf("want ',' or ')' at %d", p.i)
			}
			if len(shape) == 1 {
				return nil, fmt.Errorf("(%d) is not a tuple: want (%d,)", v, v)
			}
			return shape, nil
		}
	}
}

// WriteNPY writes a in NumPy's .npy format: version 1.0 (2.0 for a
// header over 65535 bytes), little-endian, C order, the header padded so
// the data starts at a multiple of 64 bytes, as np.save writes. bf16 is
// written as the 2-byte void '<V2' (see ReadNPY).
func WriteNPY(w io.Writer, a *Array) error { return WriteNPYWith(w, a, NPYOptions{}) }

// WriteNPYFile writes a to a new .npy file at path (see WriteNPY).
func WriteNPYFile(path string, a *Array) error {
	return writeFile(path, "npy", func(w io.Writer) error { return WriteNPY(w, a) })
}

// writeFile writes a new file at path through a buffer: into a
// temporary file beside it, renamed over path only when everything was
// written and closed, so that a write that fails (an array the format
// cannot hold, a full disk) leaves whatever was at path as it was —
// os.Create would have truncated it first, losing the old file (and
// faulting any mapping of it) — and no partial file. A symbolic link at
// path is written through. It returns the first error.
func writeFile(path, format string, write func(io.Writer) error) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	var f *os.File
	var err error
	for range 100 {
		// 0666 as os.Create, so the umask gives the new file its usual mode.
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp"+strconv.FormatUint(rand.Uint64(), 36))
		f, err = os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return &FileError{Op: "write", Format: format, Name: path, Offset: -1, Msg: "cannot create", Err: err}
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		if fe, ok := err.(*FileError); ok {
			if fe.Name == "" {
				fe.Name = path
			}
			return fe
		}
		return &FileError{Op: "write", Format: format, Name: path, Offset: -1, Msg: "writing", Err: err}
	}
	return nil
}

// WriteNPYWith writes a as .npy with the layout opts asks for.
func WriteNPYWith(w io.Writer, a *Array, opts NPYOptions) error {
	bad := func(cause error, format string, args ...any) error {
		return &FileError{Op: "write", Format: "npy", Offset: -1, Msg: fmt.Sprintf(format, args...), Err: cause}
	}
	if a == nil || !a.dtype.Valid() || !a.made() {
		return bad(nil, "not an array made by a constructor")
	}
	descr := npyDescr[a.dtype]
	if descr == "" {
		return bad(nil, "dtype %s has no .npy descr: ml_dtypes saves its narrow types as a 1-byte void (|V1), which does not say which format the bytes hold", a.dtype)
	}
	if opts.BigEndian && descr[0] == '<' && a.dtype != BF16 {
		descr = ">" + descr[1:]
	}
	dims := make([]string, len(a.shape))
	for i, d := range a.shape {
		dims[i] = strconv.Itoa(d)
	}
	tuple := "(" + strings.Join(dims, ", ") + ")"
	if len(dims) == 1 {
		tuple = "(" + dims[0] + ",)"
	}
	fortran := "False"
	if opts.Fortran {
		fortran = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, fortran, tuple)
	version := opts.Version
	if version == 0 {
		version = 1
		if len(dict)+11+64 > 65535 {
			version = 2
		}
	}
	if version < 1 || version > 3 {
		return bad(nil, "format version %d is not 1, 2 or 3", version)
	}
	pre := 10
	if version > 1 {
		pre = 12
	}
	// Pad with spaces and a newline so the data starts at a multiple of 64.
	total := (pre + len(dict) + 1 + 63) / 64 * 64
	header := dict + strings.Repeat(" ", total-pre-len(dict)-1) + "\n"
	if version == 1 && len(header) > 65535 {
		return bad(nil, "a header of %d bytes needs format version 2.0", len(header))
	}
	if len(header) > MaxNPYHeader { // a file ReadNPY would refuse
		return bad(nil, "the header of shape %s would be %d bytes, over the limit of %d (tensor.MaxNPYHeader)", clip(shapeText(a.shape)), len(header), MaxNPYHeader)
	}
	buf := make([]byte, pre, total)
	copy(buf, npyMagic)
	buf[6] = byte(version)
	if version == 1 {
		binary.LittleEndian.PutUint16(buf[8:], uint16(len(header)))
	} else {
		binary.LittleEndian.PutUint32(buf[8:], uint32(len(header)))
	}
	buf = append(buf, header...)
	if _, err := w.Write(buf); err != nil {
		return bad(err, "writing the header")
	}
	raw := rawBytes(a.data)
	swap := opts.BigEndian == littleEndianHost && a.dtype.Size() > 1 && a.dtype != BF16 ||
		!littleEndianHost && a.dtype == BF16
	if swap || opts.Fortran && len(a.shape) > 1 {
		out := make([]byte, len(raw))
		if opts.Fortran && len(a.shape) > 1 {
			reorder(out, raw, a.shape, a.dtype.Size(), false)
		} else {
			copy(out, raw)
		}
		if swap {
			swapBytes(out, swapUnit(a.dtype))
		}
		raw = out
	}
	if _, err := w.Write(raw); err != nil {
		return bad(err, "writing the data")
	}
	return nil
}

// reorder copies an array of shape with elements of size bytes between
// Fortran (column-major) and C (row-major) order: from Fortran src into
// C dst when toC, else from C src into Fortran dst. Dimensions of size
// 1 change no layout and are dropped first, so the cost follows the
// bytes, not bytes × rank: a header may list hundreds of thousands of
// them (TestNPYFortranManyOnes).
func reorder(dst, src []byte, shape []int, size int, toC bool) {
	var kept []int
	for _, d := range shape {
		if d != 1 {
			kept = append(kept, d)
		}
	}
	shape = kept
	rank := len(shape)
	fstride := make([]int, rank)
	s := size
	for i := range rank {
		fstride[i] = s
		s *= shape[i]
	}
	idx := make([]int, rank)
	f := 0 // the Fortran offset of idx
	for c := 0; c < len(dst); c += size {
		if toC {
			copy(dst[c:c+size], src[f:f+size])
		} else {
			copy(dst[f:f+size], src[c:c+size])
		}
		for i := rank - 1; i >= 0; i-- { // the row-major odometer
			idx[i]++
			f += fstride[i]
			if idx[i] < shape[i] {
				break
			}
			f -= fstride[i] * idx[i]
			idx[i] = 0
		}
	}
}
