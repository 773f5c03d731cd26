package tensor

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fortranOnesNPY is a Fortran-order u8 .npy of shape (2, 3, 1×ones): the
// size-1 dimensions change no layout, but a reorder that walks them
// costs ones steps per element.
func fortranOnesNPY(n, m, ones int) []byte {
	dims := []string{fmt.Sprint(n), fmt.Sprint(m)}
	for range ones {
		dims = append(dims, "1")
	}
	header := "{'descr': '|u1', 'fortran_order': True, 'shape': (" + strings.Join(dims, ",") + "), }"
	var buf bytes.Buffer
	buf.WriteString(npyMagic + "\x02\x00")
	binary.Write(&buf, binary.LittleEndian, uint32(len(header)))
	buf.WriteString(header)
	for j := range m { // column by column
		for i := range n {
			buf.WriteByte(byte(i*m + j))
		}
	}
	return buf.Bytes()
}

// TestNPYFortranManyOnes: a Fortran-order header may list hundreds of
// thousands of size-1 dimensions within MaxNPYHeader; reordering the data
// must cost the bytes, not bytes × rank (300,000 trailing ones over
// 256 KB of data was ~10^11 steps before reorder dropped the ones).
func TestNPYFortranManyOnes(t *testing.T) {
	const n, m, ones = 512, 512, 300_000
	a, err := ReadNPY(bytes.NewReader(fortranOnesNPY(n, m, ones)))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.shape) != 2+ones {
		t.Fatalf("rank %d", len(a.shape))
	}
	got := a.data.([]uint8)
	for k, v := range got {
		if v != byte(k) {
			t.Fatalf("element %d is %d, want %d", k, v, byte(k))
		}
	}
	// And the writer's Fortran path: written, then read back the same.
	var buf bytes.Buffer
	if err := WriteNPYWith(&buf, a, NPYOptions{Fortran: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes()[len(buf.Bytes())-n*m:], fortranOnesNPY(n, m, ones)[len(fortranOnesNPY(n, m, ones))-n*m:]) {
		t.Error("the Fortran data written differs")
	}
}

// zipCentral is one central directory entry for handZip.
type zipCentral struct {
	name   string
	method uint16
	crc    uint32
	csize  uint32
	usize  uint32
	offset uint32
}

// handZip is an archive of body (local headers and data, written by the
// caller) followed by a central directory of entries and its end record.
func handZip(body []byte, entries []zipCentral) []byte {
	out := bytes.Clone(body)
	cdOff := len(out)
	for _, e := range entries {
		c := binary.LittleEndian.AppendUint32(nil, zipCentralSig)
		c = binary.LittleEndian.AppendUint16(c, 20)
		c = binary.LittleEndian.AppendUint16(c, 20)
		c = binary.LittleEndian.AppendUint16(c, 0)
		c = binary.LittleEndian.AppendUint16(c, e.method)
		c = binary.LittleEndian.AppendUint32(c, 0)
		c = binary.LittleEndian.AppendUint32(c, e.crc)
		c = binary.LittleEndian.AppendUint32(c, e.csize)
		c = binary.LittleEndian.AppendUint32(c, e.usize)
		c = binary.LittleEndian.AppendUint16(c, uint16(len(e.name)))
		c = append(c, make([]byte, 12)...)
		c = binary.LittleEndian.AppendUint32(c, e.offset)
		out = append(append(out, c...), e.name...)
	}
	end := binary.LittleEndian.AppendUint32(nil, zipEndSig)
	end = append(end, make([]byte, 4)...)
	end = binary.LittleEndian.AppendUint16(end, uint16(len(entries)))
	end = binary.LittleEndian.AppendUint16(end, uint16(len(entries)))
	end = binary.LittleEndian.AppendUint32(end, uint32(len(out)-cdOff))
	end = binary.LittleEndian.AppendUint32(end, uint32(cdOff))
	end = binary.LittleEndian.AppendUint16(end, 0)
	return append(out, end...)
}

// localStored is a local header and the stored data of a member.
func localStored(name string, data []byte) []byte {
	h := binary.LittleEndian.AppendUint32(nil, zipLocalSig)
	h = binary.LittleEndian.AppendUint16(h, 20)
	h = append(h, make([]byte, 20)...) // flags, method 0, time, date, CRC, sizes (the central directory's count)
	h = binary.LittleEndian.AppendUint16(h, uint16(len(name)))
	h = binary.LittleEndian.AppendUint16(h, 0)
	return append(append(h, name...), data...)
}

// TestNPZOverlappingMembers: central directory entries that share a
// member's bytes (the overlapping-entry zip bomb: one deflated kernel
// named many times costs its expansion each time, each within MaxAlloc)
// are a *FileError, as Python's zipfile refuses them; a member's data
// running into the central directory too.
func TestNPZOverlappingMembers(t *testing.T) {
	var npy bytes.Buffer
	if err := WriteNPY(&npy, Must(FromSlice([]float32{1, 2, 3, 4}))); err != nil {
		t.Fatal(err)
	}
	body := localStored("x.npy", npy.Bytes())
	n := uint32(npy.Len())
	crc := crc32.ChecksumIEEE(npy.Bytes())
	good := handZip(body, []zipCentral{{name: "x.npy", crc: crc, csize: n, usize: n}})
	if got, err := ReadNPZ(bytes.NewReader(good), int64(len(good))); err != nil || len(got) != 1 {
		t.Fatalf("the well-formed archive: %v, %v", got, err)
	}
	cases := map[string][]byte{
		"same member twice": handZip(body, []zipCentral{
			{name: "x.npy", crc: crc, csize: n, usize: n},
			{name: "y.npy", crc: crc, csize: n, usize: n},
		}),
		"into the central directory": handZip(body[:len(body)-1], []zipCentral{{name: "x.npy", crc: crc, csize: n, usize: n}}),
	}
	for name, file := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ReadNPZ(bytes.NewReader(file), int64(len(file)))
			var fe *FileError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "overlap") {
				t.Fatalf("error %v, want a *FileError saying the members overlap", err)
			}
		})
	}
}

// TestSafetensorsInfoKeysExact: a tensor's entry with a key twice or
// spelled in another case is refused, as the reference implementation
// refuses it; encoding/json alone matched "DTYPE" to dtype and kept
// the last, reading 8 bytes of U8 as one F64.
func TestSafetensorsInfoKeysExact(t *testing.T) {
	cases := map[string]string{
		"dtype twice":     `{"x":{"dtype":"U8","dtype":"F64","shape":[1],"data_offsets":[0,8]}}`,
		"DTYPE":           `{"x":{"DTYPE":"F64","shape":[1],"data_offsets":[0,8]}}`,
		"dtype and DType": `{"x":{"dtype":"U8","DType":"F64","shape":[1],"data_offsets":[0,8]}}`,
		"Shape":           `{"x":{"dtype":"F64","Shape":[1],"data_offsets":[0,8]}}`,
		"not an object":   `{"x":[1]}`,
	}
	for name, header := range cases {
		t.Run(name, func(t *testing.T) {
			file := stFile(header, make([]byte, 8))
			a, _, err := ReadSafetensors(bytes.NewReader(file), int64(len(file)))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("read %v, %v; want a *FileError", a, err)
			}
		})
	}
	// An unknown key is skipped, as serde skips it.
	file := stFile(`{"x":{"dtype":"F64","extra":{"a":[1,2]},"shape":[1],"data_offsets":[0,8]}}`, make([]byte, 8))
	if a, _, err := ReadSafetensors(bytes.NewReader(file), int64(len(file))); err != nil || len(a) != 1 || a[0].Array.DType() != F64 {
		t.Fatalf("read %v, %v", a, err)
	}
}

// TestWriteRefusesNonUTF8Names: a name that is not UTF-8 would come back
// different (JSON replaces its bytes with U+FFFD; np.load cannot decode
// a zip name flagged UTF-8 that is not), so the writers refuse it.
func TestWriteRefusesNonUTF8Names(t *testing.T) {
	a := Must(FromSlice([]float32{1, 2}))
	var fe *FileError
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, []NamedArray{{"w\xff", a}}, nil); !errors.As(err, &fe) {
		t.Errorf("safetensors name: %v, want a *FileError", err)
	}
	if err := WriteSafetensors(&buf, []NamedArray{{"w", a}}, map[string]string{"k": "v\xfe"}); !errors.As(err, &fe) {
		t.Errorf("safetensors metadata: %v, want a *FileError", err)
	}
	if err := WriteNPZ(&buf, []NamedArray{{"w\xff", a}}, false); !errors.As(err, &fe) {
		t.Errorf("npz name: %v, want a *FileError", err)
	}
	// UTF-8 names round-trip.
	buf.Reset()
	if err := WriteSafetensors(&buf, []NamedArray{{"wé", a}}, map[string]string{"ké": "vé"}); err != nil {
		t.Fatal(err)
	}
	got, meta, err := ReadSafetensors(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil || got[0].Name != "wé" || meta["ké"] != "vé" {
		t.Errorf("read %v %v, %v", got, meta, err)
	}
}

// TestNPZLyingMembers: members whose central directory lies about the
// deflated data are *FileErrors, and none is expanded past its claim: a
// 64 MiB deflate bomb that claims a few hundred bytes, a claim over
// deflate's 1032:1, a method that is not 0 or 8, an encrypted member, a
// stored member whose sizes differ.
func TestNPZLyingMembers(t *testing.T) {
	var npy bytes.Buffer
	if err := WriteNPY(&npy, Must(FromSlice([]float32{1, 2, 3, 4}))); err != nil {
		t.Fatal(err)
	}
	deflate := func(b []byte) []byte {
		var z bytes.Buffer
		fw, _ := flate.NewWriter(&z, flate.BestCompression)
		fw.Write(b)
		fw.Close()
		return z.Bytes()
	}
	bomb := deflate(append(bytes.Clone(npy.Bytes()), make([]byte, 64<<20)...))
	small := deflate(npy.Bytes())
	n, crc := uint32(npy.Len()), crc32.ChecksumIEEE(npy.Bytes())
	cases := []struct {
		name, want string
		file       []byte
	}{
		{"bomb", "more than the", handZip(localStored("x.npy", bomb), []zipCentral{{name: "x.npy", method: 8, crc: crc, csize: uint32(len(bomb)), usize: n}})},
		{"over 1032:1", "more than deflate can expand to", handZip(localStored("x.npy", small), []zipCentral{{name: "x.npy", method: 8, crc: crc, csize: uint32(len(small)), usize: uint32(len(small))*1033 + 1032}})},
		{"claims more", "claims", handZip(localStored("x.npy", small), []zipCentral{{name: "x.npy", method: 8, crc: crc, csize: uint32(len(small)), usize: n + 64}})},
		{"bzip2", "compression method 12", handZip(localStored("x.npy", small), []zipCentral{{name: "x.npy", method: 12, crc: crc, csize: uint32(len(small)), usize: n}})},
		{"stored sizes differ", "stored", handZip(localStored("x.npy", npy.Bytes()), []zipCentral{{name: "x.npy", crc: crc, csize: n, usize: n - 1}})},
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
	// The well-formed deflated member reads.
	file := handZip(localStored("x.npy", small), []zipCentral{{name: "x.npy", method: 8, crc: crc, csize: uint32(len(small)), usize: n}})
	if got, err := ReadNPZ(bytes.NewReader(file), int64(len(file))); err != nil || len(got) != 1 || got[0].Array.String() != "f32[4] [1 2 3 4]" {
		t.Fatalf("read %v, %v", got, err)
	}
}

// TestNPZLocalNameDiffers: a local header naming another member than the
// central directory is a *FileError, as Python's zipfile refuses it.
func TestNPZLocalNameDiffers(t *testing.T) {
	var npy bytes.Buffer
	if err := WriteNPY(&npy, Must(FromSlice([]float32{1, 2, 3, 4}))); err != nil {
		t.Fatal(err)
	}
	n, crc := uint32(npy.Len()), crc32.ChecksumIEEE(npy.Bytes())
	for name, local := range map[string]string{"same length": "y.npy", "longer": "xy.npy"} {
		t.Run(name, func(t *testing.T) {
			file := handZip(localStored(local, npy.Bytes()), []zipCentral{{name: "x.npy", crc: crc, csize: n, usize: n}})
			_, err := ReadNPZ(bytes.NewReader(file), int64(len(file)))
			var fe *FileError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "names") {
				t.Fatalf("error %v, want a *FileError saying the names differ", err)
			}
		})
	}
}

// TestSafetensorsOddHeaders: more lying or odd headers, each a
// *FileError (these held before this review; the test pins them).
func TestSafetensorsOddHeaders(t *testing.T) {
	cases := map[string]string{
		"dim over 2^63":      `{"x":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,1]}}`,
		"NaN dim":            `{"x":{"dtype":"U8","shape":[NaN],"data_offsets":[0,1]}}`,
		"lower-case dtype":   `{"x":{"dtype":"u8","shape":[1],"data_offsets":[0,1]}}`,
		"complex":            `{"x":{"dtype":"C64","shape":[1],"data_offsets":[0,1]}}`,
		"negative offset":    `{"x":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}}`,
		"offset over 2^63":   `{"x":{"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551615]}}`,
		"metadata not a map": `{"__metadata__":[1],"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`,
		"metadata twice":     `{"__metadata__":{},"__metadata__":{},"x":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`,
		"null shape":         `{"x":{"dtype":"U8","shape":null,"data_offsets":[0,1]}}`,
		"entry is null":      `{"x":null}`,
	}
	for name, header := range cases {
		t.Run(name, func(t *testing.T) {
			file := stFile(header, []byte{7})
			a, _, err := ReadSafetensors(bytes.NewReader(file), int64(len(file)))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("read %v, %v; want a *FileError", a, err)
			}
		})
	}
}

// TestWriteFileFailureKeepsOld: a write that fails (here an array the
// format cannot hold) leaves the file that was at the path as it was,
// and no partial file; it truncated it to nothing before.
func TestWriteFileFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	c := Must(FromSlice([]complex64{1}))
	good := Must(FromSlice([]float32{1, 2}))
	for _, c := range []struct {
		ext   string
		write func(path string) error
	}{
		{"safetensors", func(p string) error { return WriteSafetensorsFile(p, []NamedArray{{"x", c}}, nil) }},
		{"npz", func(p string) error { return WriteNPZFile(p, []NamedArray{{"x", good}, {"y\xff", good}}, true) }},
		{"npy", func(p string) error { return WriteNPYFile(p, &Array{}) }},
	} {
		t.Run(c.ext, func(t *testing.T) {
			path := filepath.Join(dir, "w."+c.ext)
			old := []byte("the old file")
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			var fe *FileError
			if err := c.write(path); !errors.As(err, &fe) {
				t.Fatalf("error %v, want a *FileError", err)
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, old) {
				t.Errorf("after the failed write the file holds %q, %v; want %q", got, err, old)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("the directory holds %d files, want 1 (no partial file left)", len(ents))
			}
			os.Remove(path)
		})
	}
	// A write that succeeds replaces the file, with the mode os.Create gives.
	path := filepath.Join(dir, "ok.npy")
	if err := WriteNPYFile(path, good); err != nil {
		t.Fatal(err)
	}
	if a, err := ReadNPYFile(path); err != nil || !Equal(a, good) {
		t.Fatalf("read back %v, %v", a, err)
	}
	ref := filepath.Join(dir, "ref")
	f, err := os.Create(ref)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	st1, _ := os.Stat(path)
	st2, _ := os.Stat(ref)
	if st1.Mode() != st2.Mode() {
		t.Errorf("mode %v, want %v (os.Create's)", st1.Mode(), st2.Mode())
	}
}

// TestWriteNPYHeaderOverLimit: WriteNPY refuses a header ReadNPY would
// refuse (a rank in the hundreds of thousands), rather than writing a
// file no reader takes back.
func TestWriteNPYHeaderOverLimit(t *testing.T) {
	shape := make([]int, MaxNPYHeader/3+1)
	for i := range shape {
		shape[i] = 1
	}
	a := &Array{dtype: U8, shape: shape, data: []uint8{7}}
	var buf bytes.Buffer
	var fe *FileError
	if err := WriteNPY(&buf, a); !errors.As(err, &fe) || !strings.Contains(err.Error(), "MaxNPYHeader") {
		t.Fatalf("error %v, want a *FileError naming MaxNPYHeader", err)
	}
	if buf.Len() != 0 {
		t.Errorf("%d bytes written before the refusal", buf.Len())
	}
}
