package tensor

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"unicode/utf8"
)

// The file readers' fuzz targets: any input is an array or a *FileError,
// never a panic or an allocation sized by a claim; what is read writes
// back and reads again to the same bits. Inputs that once broke a reader
// are kept in testdata/fuzz.

func fileSeeds(f *testing.F, write func(*bytes.Buffer, []NamedArray) error) {
	var arrays []NamedArray
	for i, d := range AllDTypes() {
		arrays = append(arrays, NamedArray{Name: "a" + d.String(), Array: bitsArray(d, fileShapes[i%len(fileShapes)], 9)})
	}
	for i := range arrays {
		var buf bytes.Buffer
		if write(&buf, arrays[i:i+1]) == nil {
			f.Add(buf.Bytes())
		}
	}
	var buf bytes.Buffer
	if write(&buf, arrays) == nil {
		f.Add(buf.Bytes())
	}
}

// checkFileError fails unless err is nil or a *FileError.
func checkFileError(t *testing.T, err error) {
	var fe *FileError
	if err != nil && !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FileError", err, err)
	}
}

func FuzzReadNPY(f *testing.F) {
	fileSeeds(f, func(w *bytes.Buffer, a []NamedArray) error {
		return WriteNPYWith(w, a[0].Array, NPYOptions{BigEndian: len(a[0].Name)%2 == 0, Fortran: true})
	})
	f.Add(npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", make([]byte, 8)))
	f.Add(npyFile("{'descr': '|b1', 'fortran_order': True, 'shape': (2, 2), }", []byte{0, 1, 2, 3}))
	defer SetMaxAlloc(SetMaxAlloc(1 << 20)) // claims past 1 MB are refused early: the fuzzer explores parsing, not sizes
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ReadNPY(bytes.NewReader(b))
		checkFileError(t, err)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteNPY(&buf, a); err != nil {
			t.Fatal(err)
		}
		back, err := ReadNPY(&buf)
		if err != nil || !Equal(a, back) {
			t.Fatalf("read %v; written and read again: %v, %v", a, back, err)
		}
	})
}

func FuzzReadNPZ(f *testing.F) {
	fileSeeds(f, func(w *bytes.Buffer, a []NamedArray) error { return WriteNPZ(w, a, len(a)%2 == 1) })
	defer SetMaxAlloc(SetMaxAlloc(1 << 20)) // claims past 1 MB are refused early: the fuzzer explores parsing, not sizes
	f.Fuzz(func(t *testing.T, b []byte) {
		arrays, err := ReadNPZ(bytes.NewReader(b), int64(len(b)))
		checkFileError(t, err)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteNPZ(&buf, arrays, true); err != nil {
			if slices.ContainsFunc(arrays, func(na NamedArray) bool { return na.Name == "" || !utf8.ValidString(na.Name) }) {
				return // a member named ".npy" or not UTF-8: Kiln reads it, refuses to write it
			}
			t.Fatal(err)
		}
		back, err := ReadNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil || len(back) != len(arrays) {
			t.Fatalf("read %v; written and read again: %v, %v", arrays, back, err)
		}
		for i := range back {
			if back[i].Name != arrays[i].Name || !Equal(back[i].Array, arrays[i].Array) {
				t.Fatalf("read %v; written and read again: %v", arrays[i], back[i])
			}
		}
	})
}

func FuzzReadSafetensors(f *testing.F) {
	fileSeeds(f, func(w *bytes.Buffer, a []NamedArray) error {
		return WriteSafetensors(w, a, map[string]string{"k": "v"})
	})
	f.Add(stFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}}`, make([]byte, 5)))
	defer SetMaxAlloc(SetMaxAlloc(1 << 20)) // claims past 1 MB are refused early: the fuzzer explores parsing, not sizes
	f.Fuzz(func(t *testing.T, b []byte) {
		arrays, meta, err := ReadSafetensors(bytes.NewReader(b), int64(len(b)))
		checkFileError(t, err)
		// The mapping's path over the same bytes agrees.
		var mapped *SafetensorsFile
		hlen, herr := int64(0), error(nil)
		if len(b) >= 8 {
			hlen, herr = checkSafetensorsHeaderLen(leUint64(b), int64(len(b)))
		} else {
			herr = errors.New("short")
		}
		if herr == nil {
			mapped, herr = newSafetensorsFile("fuzz", b, hlen)
		}
		if (err == nil) != (herr == nil) {
			t.Fatalf("ReadSafetensors: %v; the mapping's reader: %v", err, herr)
		}
		if err != nil {
			return
		}
		checkSameTensors(t, "mapped", mapped.Tensors(), arrays)
		var buf bytes.Buffer
		if err := WriteSafetensors(&buf, arrays, meta); err != nil {
			if slices.ContainsFunc(arrays, func(na NamedArray) bool { return na.Name == "" }) {
				return // the format allows an empty name; Kiln refuses to write one
			}
			t.Fatal(err)
		}
		back, _, err := ReadSafetensors(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		checkSameTensors(t, "written and read again", back, arrays)
	})
}

func leUint64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}
